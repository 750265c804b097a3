package audit

import (
	"bytes"
	"encoding/hex"
	"slices"
	"strconv"

	"github.com/bti-go/bti/rowindex"
	"github.com/bti-go/bti/trie"
)

// CheckRows audits a whole Rows.db given the positions of all its
// partition entries (the non-negative values of its Partitions.db, in any
// order): it checks each partition as rowindex.Walk does and goes on to the
// next after a problem; it rebuilds each trie from its separators and payloads with the
// writer, at the position it starts (right after the previous entry), and
// compares the bytes and the root; and it checks that the file ends with
// the last entry. Unlike rowindex.Walk it needs every entry: a trie is the
// bytes between two consecutive entries. Of opts it reads PageSize,
// MaxProblems and Visit.
func CheckRows(data []byte, positions []int64, opts Options) *Report {
	opts = opts.withDefaults()
	limit := opts.MaxProblems
	rep := &Report{Size: int64(len(data)), Problems: []Problem{}}
	sorted := slices.Clone(positions)
	slices.Sort(sorted)
	var (
		blocks  []rowindex.IndexInfo
		rb      rebuilder
		prevEnd int64
		known   = true // prevEnd is where the previous entry ends
	)
	for i, pos := range sorted {
		if i > 0 && pos == sorted[i-1] {
			rep.add(limit, Problem{Offset: pos, Node: -1, Entry: pos, Rule: RuleOrder, Detail: "two partitions share this entry"})
			continue
		}
		rep.Entries++
		if pos < prevEnd {
			rep.add(limit, Problem{Offset: pos, Node: -1, Entry: pos, Rule: RuleOrder,
				Detail: "entry starts inside the previous one, which ends at " + strconv.FormatInt(prevEnd, 10)})
			continue
		}
		e, p, bl, err := rowindex.WalkEntry(data, pos, prevEnd, blocks[:0])
		blocks = bl
		if err != nil {
			rep.add(limit, corruptProblem(err, pos, RuleEntry))
			if e.End > pos {
				prevEnd, known = e.End, true
			} else {
				// The next trie starts somewhere after this entry.
				prevEnd, known = pos+1, false
			}
			continue
		}
		rep.Blocks += int64(e.Blocks)
		if known {
			if off, detail := rb.check(p, data[prevEnd:e.Position], prevEnd, opts.PageSize); detail != "" {
				rep.add(limit, Problem{Offset: off, Node: -1, Entry: pos, Rule: RuleLayout, Detail: detail})
			}
		}
		if opts.Visit != nil {
			if rule, detail := opts.Visit(e, blocks); rule != "" {
				rep.add(limit, Problem{Offset: pos, Node: -1, Entry: pos, Rule: rule, Detail: detail})
			}
		}
		prevEnd, known = e.End, true
	}
	if known && prevEnd < int64(len(data)) {
		rep.add(limit, Problem{Offset: prevEnd, Node: -1, Entry: -1, Rule: RuleTrailing,
			Detail: strconv.FormatInt(int64(len(data))-prevEnd, 10) + " bytes after the last partition entry"})
	}
	return rep
}

func corruptProblem(err error, entry int64, rule Rule) Problem {
	if ce, ok := err.(*rowindex.CorruptError); ok {
		return Problem{Offset: ce.Offset, Node: -1, Entry: entry, Rule: rule, Detail: ce.Reason}
	}
	return Problem{Offset: entry, Node: -1, Entry: entry, Rule: rule, Detail: err.Error()}
}

// rebuilder rewrites a partition's trie from its entries; its memory is
// reused from one partition to the next.
type rebuilder struct {
	w       *trie.Writer
	out     bytes.Buffer
	shape   trie.Shape
	frames  []rebuildFrame
	kids    []trie.Child // the children of every frame, one stack
	key     []byte       // the path to the current node
	keys    [2][]byte    // the last two keys added (the writer reads the last)
	slot    int          // keys[slot] is the last key added
	payload []byte
}

type rebuildFrame struct {
	start, next, end int // kids[start:end] are this node's, kids[next:end] still to visit
	depth            int // key length at this node
}

// check rebuilds p's trie at start and compares it with want, the bytes
// between the previous entry and p's; it returns the offset and a
// description of the first difference, or "" when they are equal.
func (rb *rebuilder) check(p *rowindex.Partition, want []byte, start int64, pageSize int) (int64, string) {
	rb.out.Reset()
	opts := trie.Options{PageSize: pageSize, StartPosition: start}
	if rb.w == nil {
		rb.w = trie.NewWriter(&rb.out, opts)
	} else {
		rb.w.Reset(&rb.out, opts)
	}
	root := p.Trie().Root()
	rb.frames = rb.frames[:0]
	rb.kids = rb.kids[:0]
	rb.key = rb.key[:0]
	if off, err := rb.add(p, root, 0); err != "" {
		return off, err
	}
	if off, err := rb.push(p, root, 0); err != "" {
		return off, err
	}
	// A tree visits each node once; more visits than bytes means shared
	// or looping pointers (the trie package refuses forward pointers, so
	// only sharing is possible).
	budget := len(want)
	for len(rb.frames) > 0 {
		top := &rb.frames[len(rb.frames)-1]
		if top.next == top.end {
			rb.kids = rb.kids[:top.start]
			rb.frames = rb.frames[:len(rb.frames)-1]
			continue
		}
		c := rb.kids[top.next]
		top.next++
		if budget--; budget < 0 {
			return c.Pos, "nodes are shared: more are reached than the trie has bytes"
		}
		depth := top.depth
		rb.key = append(rb.key[:depth], c.Transition)
		if off, err := rb.add(p, c.Pos, depth+1); err != "" {
			return off, err
		}
		if off, err := rb.push(p, c.Pos, depth+1); err != "" {
			return off, err
		}
	}
	got, err := rb.w.Complete()
	if err == nil {
		err = rb.w.Flush()
	}
	if err != nil {
		return root, "the writer refuses its entries: " + err.Error()
	}
	b := rb.out.Bytes()
	if i := diffAt(b, want); i >= 0 {
		return start + int64(i), "differs from the writer's layout of the same entries at this byte (" +
			strconv.Itoa(len(want)) + " bytes in the file, " + strconv.Itoa(len(b)) + " rebuilt)"
	}
	if got != root {
		return root, "root " + strconv.FormatInt(root, 10) + ", the writer's is " + strconv.FormatInt(got, 10)
	}
	return 0, ""
}

// push stacks the children of the node at pos, in transition order.
func (rb *rebuilder) push(p *rowindex.Partition, pos int64, depth int) (int64, string) {
	if err := p.Trie().Shape(pos, &rb.shape); err != nil {
		return pos, err.Error()
	}
	if rb.shape.BadPointers > 0 {
		return pos, "node has pointers that do not point backwards"
	}
	start := len(rb.kids)
	rb.kids = append(rb.kids, rb.shape.Children...)
	rb.frames = append(rb.frames, rebuildFrame{start: start, next: start, end: len(rb.kids), depth: depth})
	return 0, ""
}

// add hands the node's payload, if any, to the writer under the current
// key, re-encoded as the writer encodes it.
func (rb *rebuilder) add(p *rowindex.Partition, pos int64, depth int) (int64, string) {
	flags, _, err := p.Trie().Payload(pos)
	if err != nil {
		return pos, err.Error()
	}
	if flags == 0 {
		return 0, ""
	}
	info, err := p.Info(pos)
	if err != nil {
		return pos, err.Error()
	}
	var pf byte
	rb.payload, pf = rowindex.AppendPayload(rb.payload[:0], info)
	// The writer reads the last key until the next Add: alternate slots.
	rb.slot ^= 1
	k := append(rb.keys[rb.slot][:0], rb.key[:depth]...)
	rb.keys[rb.slot] = k
	if err := rb.w.Add(k, pf, rb.payload); err != nil {
		return pos, "the writer refuses the entry " + hex.EncodeToString(k) + ": " + err.Error()
	}
	return 0, ""
}

// diffAt returns the first index where a and b differ (the shorter
// length if one is a prefix of the other), or -1 if they are equal.
func diffAt(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	if len(a) != len(b) {
		return min(len(a), len(b))
	}
	return -1
}
