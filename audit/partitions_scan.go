package audit

import (
	"github.com/bti-go/bti/internal/indexfile"
	"github.com/bti-go/bti/internal/partitionpayload"
	"github.com/bti-go/bti/trie"
)

// The linear scan. Nodes are self-delimiting (the header gives the fixed
// part, the payload flags the payload's length) and a zero byte is never a
// node header (every type but PAYLOAD_ONLY has a non-zero high nibble, and
// PAYLOAD_ONLY without payload is only the root of an empty index), so the
// trie area parses front to back as nodes and zero padding runs, exactly as
// the writer put them down. Each node's own rules are checked here, once.

// segmentBytes returns the bytes of the segment holding pos from pos on.
func (c *checker) segmentBytes(pos int64) []byte {
	if pos >= c.cutoff && c.src.Tail != nil {
		return c.src.Tail[pos-c.cutoff:]
	}
	return c.src.File[pos:c.fileEnd]
}

// isEmptyRoot: the one node with a zero header, the root of an empty index.
func (c *checker) isEmptyRoot(pos int64) bool {
	return pos == c.ix.Root() && c.ix.Count() == 0
}

func (c *checker) scan() error {
	c.lastStart, c.lastEnd = -1, -1
	if err := c.scanSegment(0, c.fileEnd, true); err != nil {
		return err
	}
	if c.src.Tail != nil && !c.scanBroken {
		if err := c.scanSegment(c.cutoff, c.end, false); err != nil {
			return err
		}
	}
	if c.scanBroken {
		return nil
	}
	root := c.ix.Root()
	segEnd := c.fileEnd
	if c.src.Tail != nil && c.end > c.cutoff {
		segEnd = c.end
	}
	if c.lastStart != root || c.lastEnd != segEnd {
		c.problem(root, root, RuleRoot, "the root is not the last node before %d (the last node is at %d and ends at %d)", segEnd, c.lastStart, c.lastEnd)
	}
	return nil
}

// scanSegment parses [start, end) into nodes and padding. paged: the
// segment is laid out in pages (the file; an early-open tail is not).
func (c *checker) scanSegment(start, end int64, paged bool) error {
	for p := start; p < end; {
		b := c.segmentBytes(p)
		if b[0] == 0 && !c.isEmptyRoot(p) {
			p = c.scanPadding(p, end, paged)
			continue
		}
		if err := c.spend(); err != nil {
			return err
		}
		size, ok := c.scanNode(p, b, paged)
		if !ok {
			c.scanBroken = true
			return nil
		}
		c.lastStart, c.lastEnd = p, p+size
		p += size
	}
	return nil
}

// scanPadding checks the zero run at p, which must reach the next page
// boundary (or the end of the segment), and returns where to go on.
func (c *checker) scanPadding(p, end int64, paged bool) int64 {
	if !paged {
		c.problem(p, -1, RulePadding, "zero byte in the early-open tail, which the writer never pads")
		c.padding(1)
		return p + 1
	}
	stop := min((p/c.page+1)*c.page, end)
	run := c.segmentBytes(p)[:stop-p]
	for i, x := range run {
		if x != 0 {
			c.problem(p+int64(i), -1, RulePadding, "byte %#02x inside zero padding that started at %d and must run to the page boundary at %d", x, p, stop)
			c.padding(int64(i))
			return p + int64(i)
		}
	}
	c.padding(stop - p)
	return stop
}

// padding counts n padding bytes (once: not again during diagnosis).
func (c *checker) padding(n int64) {
	if c.diag == nil {
		c.report.PaddingBytes += n
	}
}

// scanNode checks the node at p (b: its segment from p on) and returns its
// size with payload; ok is false when it cannot be sized.
func (c *checker) scanNode(p int64, b []byte, paged bool) (int64, bool) {
	s := &c.shape
	if err := c.t.Shape(p, s); err != nil {
		c.problem(p, p, RuleNode, "%v", stripTrie(err))
		c.scanFailedNode = p
		return 0, false
	}
	size := int64(s.FixedSize) + partitionpayload.Length(s.Flags)
	if size > int64(len(b)) {
		c.problem(p, p, RulePayload, "%s with payload flags %d needs %d bytes, only %d left in its segment", trie.TypeName(s.Type), s.Flags, size, len(b))
		c.scanFailedNode = p
		return 0, false
	}
	if c.diag != nil {
		c.diag.starts[p>>6] |= 1 << (p & 63)
	}
	c.scanNodes++
	if c.scanNodes&progressEvery == 0 && c.opts.Progress != nil {
		c.opts.Progress("scan", p, c.end)
	}
	c.scanSum += mix64(uint64(p))
	c.scanXor ^= mix64b(uint64(p))
	if c.diag == nil {
		c.byType[s.Type]++
	}
	c.nodeRules(s, b[:size])
	if paged && p/c.page != (p+size-1)/c.page && size <= c.page {
		c.problem(p, p, RulePage, "%d-byte %s crosses the page boundary at %d", size, trie.TypeName(s.Type), (p/c.page+1)*c.page)
	}
	return size, true
}

// nodeRules checks one node's own fields; node is its bytes with payload.
func (c *checker) nodeRules(s *trie.Shape, node []byte) {
	p := s.Pos
	if c.isEmptyRoot(p) && s.Header == 0 {
		return // the empty index's root: PAYLOAD_ONLY without payload
	}
	kids := s.Children
	if s.BadPointers > 0 {
		c.problem(p, p, RuleNode, "%s: %d child pointers do not point strictly backwards", trie.TypeName(s.Type), s.BadPointers)
		return
	}
	if len(kids) > 0 {
		for i := 1; i < len(kids); i++ {
			if kids[i].Transition <= kids[i-1].Transition {
				c.problem(p, p, RuleTransitions, "transition %#02x follows %#02x", kids[i].Transition, kids[i-1].Transition)
				break
			}
		}
		maxDist := int64(0)
		for _, k := range kids {
			maxDist = max(maxDist, p-k.Pos)
		}
		span := int(kids[len(kids)-1].Transition) - int(kids[0].Transition) + 1
		if want := trie.WriterType(len(kids), span, s.Flags != 0, maxDist); want != s.Type && span > 0 {
			c.problem(p, p, RuleType, "%s with %d children spanning %d bytes, farthest %d back: the writer writes %s", trie.TypeName(s.Type), len(kids), span, maxDist, trie.TypeName(want))
		}
	} else if s.Type != 0 {
		c.problem(p, p, RuleType, "%s without children (a leaf is PAYLOAD_ONLY)", trie.TypeName(s.Type))
	}
	if s.EdgeHole {
		c.problem(p, p, RuleDense, "%s with an empty first or last slot", trie.TypeName(s.Type))
	}
	if s.NibbleSet {
		c.problem(p, p, RulePacking, "%s: the unused nibble of its 12-bit pointers is not zero", trie.TypeName(s.Type))
	}
	switch {
	case len(kids) > 0 && s.Flags != 0:
		c.problem(p, p, RulePayload, "payload flags %d on a node with children (entries are leaves)", s.Flags)
	case len(kids) == 0 && s.Flags == 0:
		c.problem(p, p, RulePayload, "leaf without payload")
	case len(kids) == 0 && s.Flags < partitionpayload.FlagHasHash:
		c.problem(p, p, RulePayload, "payload flags %d: the writer always stores a hash byte (flags 8..15)", s.Flags)
	case len(kids) == 0:
		_, _, v, ok := partitionpayload.Decode(s.Flags, node[s.FixedSize:])
		if !ok {
			break // sized above, cannot happen
		}
		if v == indexfile.NotFound {
			c.problem(p, p, RulePayload, "position %d is Cassandra's not-found marker", v)
		} else if n := partitionpayload.PositionSize(v); n != int(s.Flags)-7 {
			c.problem(p, p, RulePayload, "position %d stored in %d bytes, the writer uses %d", v, int(s.Flags)-7, n)
		}
	}
}

// stripTrie gives a trie error's reason without its "trie: corrupt node at
// offset N" preamble (the problem carries the offset).
func stripTrie(err error) string {
	if te, ok := err.(*trie.CorruptError); ok {
		return te.Reason
	}
	return err.Error()
}
