package partitionindex

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/bti-go/bti/partitioner"
	"github.com/bti-go/bti/trie"
)

// checkFooter checks what the footer says on its own, before the scan.
func (c *checker) checkFooter() {
	v := &c.ix.v
	switch {
	case v.count == 1 && !bytes.Equal(v.firstKey, v.lastKey):
		c.problem(c.footerPos()+8, -1, RuleFooter, "one key, but the first key %x and the last key %x differ", v.firstKey, v.lastKey)
	case v.count == 0 && v.root != 0 && c.ix.data != nil:
		c.problem(c.footerPos()+16, -1, RuleFooter, "an empty index's root is its only node, at 0, not %d", v.root)
	}
}

// checkFooterKeys applies the footer-key rule after the walk found the first
// and last entries.
func (c *checker) checkFooterKeys() {
	w := &c.walk
	var walker trie.Walker
	walker.Reset(c.t)
	fits := footerPartitioners(c.ix, &walker, w.firstPos, w.lastPos)
	c.report.Partitioners = fits
	if c.opts.DetectPartitioner {
		switch {
		case len(fits) == 0:
			c.problem(c.firstKeyPos(), -1, RuleFirstKey, "the footer's first and last keys resolve to the first and last entries under no partitioner")
		case !containsPartitioner(fits, c.ix.part):
			c.report.Partitioner = fits[0]
		}
		return
	}
	if rule, detail := footerFits(c.ix, &walker, c.ix.part, w.firstPos, w.lastPos); rule != "" {
		off := c.firstKeyPos()
		if rule == RuleLastKey {
			off += 2 + int64(len(c.ix.v.firstKey))
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
		return c.ix.part
	}
	fits, err := FooterPartitioners(c.ix)
	if err != nil || len(fits) != 1 {
		return partitioner.Random
	}
	return fits[0]
}

func (c *checker) firstKeyPos() int64 {
	if c.ix.data == nil {
		return c.ix.v.root
	}
	return c.ix.firstKeyPos
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
// fits all three. This is Check's footer rule; bti check --partitioner auto
// uses it to detect the partitioner.
func FooterPartitioners(ix *Index) ([]partitioner.Partitioner, error) {
	var w trie.Walker
	w.Reset(ix.trie)
	first, err := w.First()
	if err != nil {
		return nil, err
	}
	last, err := w.Last()
	if err != nil {
		return nil, err
	}
	return footerPartitioners(ix, &w, first, last), nil
}

var allPartitioners = [...]partitioner.Partitioner{partitioner.Murmur3, partitioner.ByteOrdered, partitioner.Random}

// footerPartitioners is the detection itself, given the first and last
// entries' nodes (-1 when there are none).
func footerPartitioners(ix *Index, w *trie.Walker, first, last int64) []partitioner.Partitioner {
	var fits []partitioner.Partitioner
	for _, p := range allPartitioners {
		if rule, _ := footerFits(ix, w, p, first, last); rule == "" {
			fits = append(fits, p)
		}
	}
	return fits
}

// footerFits checks the footer's keys under p with footerResolves (the
// rule Open applies) and returns the rule broken and why, or "" when they
// fit. Check is stricter than Open in one point: the two entries must
// carry a hash byte (every entry Cassandra's writer and ours write does).
func footerFits(ix *Index, w *trie.Walker, p partitioner.Partitioner, first, last int64) (Rule, string) {
	err := footerResolves(ix, w, p, first, last)
	var me *PartitionerMismatchError
	var ce *CorruptError
	switch {
	case errors.As(err, &me):
		switch {
		case me.order:
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
	if ix.v.count == 0 || first < 0 {
		return "", ""
	}
	for _, end := range [2]struct {
		rule Rule
		node int64
	}{{RuleFirstKey, first}, {RuleLastKey, last}} {
		flags, b, err := ix.trie.Payload(end.node)
		if err != nil {
			return end.rule, err.Error()
		}
		if _, hasHash, _, ok := decodePayload(flags, b); !ok || !hasHash {
			return end.rule, fmt.Sprintf("the entry at %d has no hash byte", end.node)
		}
	}
	return "", ""
}
