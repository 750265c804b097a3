package audit

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/bti-go/bti/internal/partitionpayload"
	"github.com/bti-go/bti/partitioner"
	"github.com/bti-go/bti/partitionindex"
	"github.com/bti-go/bti/trie"
)

// checkFooter checks what the footer says on its own, before the scan.
func (c *checker) checkFooter() {
	ix := c.ix
	switch {
	case ix.Count() == 1 && !bytes.Equal(ix.FirstKey(), ix.LastKey()):
		c.problem(c.footerPos()+8, -1, RuleFooter, "one key, but the first key %x and the last key %x differ", ix.FirstKey(), ix.LastKey())
	case ix.Count() == 0 && ix.Root() != 0 && !c.isView():
		c.problem(c.footerPos()+16, -1, RuleFooter, "an empty index's root is its only node, at 0, not %d", ix.Root())
	}
}

// checkFooterKeys applies the footer-key rule after the walk found the first
// and last entries.
func (c *checker) checkFooterKeys() {
	w := &c.walk
	fits := footerPartitioners(c.ix, w.firstPos, w.lastPos)
	c.report.Partitioners = fits
	if c.opts.DetectPartitioner {
		switch {
		case len(fits) == 0:
			c.problem(c.firstKeyPos(), -1, RuleFirstKey, "the footer's first and last keys resolve to the first and last entries under no partitioner")
		case !containsPartitioner(fits, c.ix.Partitioner()):
			c.report.Partitioner = fits[0]
		}
		return
	}
	if rule, detail := footerFits(c.ix, c.ix.Partitioner(), w.firstPos, w.lastPos); rule != "" {
		off := c.firstKeyPos()
		if rule == RuleLastKey {
			off += 2 + int64(len(c.ix.FirstKey()))
		}
		if len(fits) > 0 {
			detail += fmt.Sprintf(" (the keys fit %v)", fits[0])
		}
		c.problem(off, -1, rule, "%s", detail)
	}
}

// grammarPartitioner is the partitioner whose key encoding the walk
// checks transitions against: the index's own, or with DetectPartitioner
// the one the footer's keys fit (none known: Random, which checks only the
// leading 40 every encoding starts with).
func (c *checker) grammarPartitioner() partitioner.Partitioner {
	if !c.opts.DetectPartitioner {
		return c.ix.Partitioner()
	}
	fits, err := FooterPartitioners(c.ix)
	if err != nil || len(fits) != 1 {
		return partitioner.Random
	}
	return fits[0]
}

func (c *checker) firstKeyPos() int64 {
	if c.isView() {
		return c.ix.Root()
	}
	return c.ix.FirstKeyPos()
}

// isView reports whether the index is an early-open view, which has no
// footer (its FirstKeyPos is 0; a complete file's is past the root).
func (c *checker) isView() bool { return c.ix.FirstKeyPos() == 0 }

// footerPos is where the footer's three numbers start (for problem
// offsets): after the two length-prefixed keys, which parsing the footer
// required to end right there. An early-open view has none, and reports at
// its root.
func (c *checker) footerPos() int64 {
	if c.isView() {
		return c.ix.Root()
	}
	return c.ix.FirstKeyPos() + 2 + int64(len(c.ix.FirstKey())) + 2 + int64(len(c.ix.LastKey()))
}

func containsPartitioner(ps []partitioner.Partitioner, p partitioner.Partitioner) bool {
	for _, q := range ps {
		if q == p {
			return true
		}
	}
	return false
}

// FooterPartitioners returns the partitioners under which the footer's keys
// fit the trie: with two or more keys the first sorts before the last, and
// each resolves (an exact lookup of its encoding) to the first and last
// entry respectively, whose hash byte matches. An index of one key or none
// fits all three. This is CheckPartitions' footer rule; bti check
// --partitioner auto uses it to detect the partitioner.
func FooterPartitioners(ix *partitionindex.Index) ([]partitioner.Partitioner, error) {
	var w trie.Walker
	w.Reset(ix.Trie())
	first, err := w.First()
	if err != nil {
		return nil, fromTrie(err)
	}
	last, err := w.Last()
	if err != nil {
		return nil, fromTrie(err)
	}
	return footerPartitioners(ix, first, last), nil
}

var allPartitioners = [...]partitioner.Partitioner{partitioner.Murmur3, partitioner.ByteOrdered, partitioner.Random}

// footerPartitioners is the detection itself, given the first and last
// entries' nodes (-1 when there are none).
func footerPartitioners(ix *partitionindex.Index, first, last int64) []partitioner.Partitioner {
	var fits []partitioner.Partitioner
	for _, p := range allPartitioners {
		if rule, _ := footerFits(ix, p, first, last); rule == "" {
			fits = append(fits, p)
		}
	}
	return fits
}

// footerFits checks the footer's keys under p with the rule Open applies
// (partitionindex.Index.ResolveFooter) and returns the rule broken and why,
// or "" when they fit. first and last are the first and last entries the
// check's walk found (-1 when there are none). The check is stricter than
// Open in one point: the two entries must carry a hash byte (every entry
// Cassandra's writer and ours write does).
func footerFits(ix *partitionindex.Index, p partitioner.Partitioner, first, last int64) (Rule, string) {
	if ix.Count() == 0 || first < 0 {
		// Nothing to resolve; the count rule reports an empty trie that
		// should hold entries, or entries the count leaves out.
		return "", ""
	}
	err := ix.ResolveFooter(p)
	var me *partitionindex.PartitionerMismatchError
	var ce *partitionindex.CorruptError
	switch {
	case errors.As(err, &me):
		switch {
		case sortsWrong(ix, p):
			return RuleFooter, err.Error()
		case me.Which == "last":
			return RuleLastKey, err.Error()
		}
		return RuleFirstKey, err.Error()
	case errors.As(err, &ce):
		if ce.Offset == last && last != first {
			return RuleLastKey, err.Error()
		}
		return RuleFirstKey, err.Error()
	case err != nil:
		return RuleFirstKey, err.Error()
	}
	t := ix.Trie()
	for _, end := range [2]struct {
		rule Rule
		node int64
	}{{RuleFirstKey, first}, {RuleLastKey, last}} {
		flags, b, err := t.Payload(end.node)
		if err != nil {
			return end.rule, err.Error()
		}
		if _, hasHash, _, ok := partitionpayload.Decode(flags, b); !ok || !hasHash {
			return end.rule, fmt.Sprintf("the entry at %d has no hash byte", end.node)
		}
	}
	return "", ""
}

// sortsWrong reports whether the footer's first key does not sort before
// its last under p (with two or more keys), the one footer mismatch that
// is about the footer alone (RuleFooter) rather than one of its keys.
func sortsWrong(ix *partitionindex.Index, p partitioner.Partitioner) bool {
	return ix.Count() >= 2 && partitioner.Compare(p.Decorate(ix.FirstKey()), p.Decorate(ix.LastKey())) >= 0
}

// fromTrie reports a trie corruption error as a *partitionindex.CorruptError,
// as the index's own methods do, so a caller matches one sentinel,
// partitionindex.ErrCorrupt, whatever layer found the bad bytes. Other
// errors (and nil) pass through.
func fromTrie(err error) error {
	var te *trie.CorruptError
	if errors.As(err, &te) {
		return &partitionindex.CorruptError{Offset: te.Offset, Reason: te.Reason}
	}
	return err
}
