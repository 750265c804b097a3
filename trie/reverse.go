package trie

import "math"

// notAtLimit is the reverse iterator's "not on start's path" limit: no
// transition byte is below it.
const notAtLimit = math.MinInt32

// ReverseIterator lists the payload nodes of a trie in descending order, as
// Cassandra's ReverseValueIterator (docs/format.md §9.5): children from the highest byte
// down, and a node's own payload after its subtree. Bounds work as for
// Iterator: end is inclusive (with its stored prefixes), and the entry at
// start or the nearest stored prefix of start is listed only with
// admitPrefix, only once, and only if no entry between it and start was
// passed over.
//
// Cassandra quirk kept on purpose (docs/format.md §9.5, Q16): without an end bound,
// admitPrefix only takes effect after the first result, so a start-path
// entry that would be the very first result is skipped.
//
// Use it as Iterator; it reuses its stack and keeps start (not a copy) until
// the next Reset.
type ReverseIterator struct {
	iterCore       // bound is start
	reporting bool // a start-path entry may still be reported
	admit     bool // admitPrefix, applied after the first result when end is nil
	delayed   bool // reporting waits for the first result (no end bound)
}

// Reset starts a new descending iteration over t from end down to start
// (nil for unbounded).
func (it *ReverseIterator) Reset(t *Trie, start, end []byte, admitPrefix bool) {
	it.admit = admitPrefix
	if end == nil {
		it.reporting, it.delayed = false, true
	} else {
		it.reporting, it.delayed = admitPrefix, false
	}
	if err := it.reset(t, start); err != nil {
		it.fail(err)
		return
	}
	if end == nil {
		it.resetNoEnd()
	} else {
		it.resetWithEnd(end)
	}
}

// resetNoEnd stacks the root, loaded by reset, to be visited from its last
// child down. It is Iterator.resetNoStart going backward.
func (it *ReverseIterator) resetNoEnd() {
	limit := notAtLimit
	if it.bound != nil {
		limit = it.nextBound()
	}
	it.stack = append(it.stack, iterFrame{node: it.t.root, slot: it.nv.n, limit: limit})
}

// resetWithEnd follows end, stacking its path, and leaves the top frame just
// after the last child smaller than end's next byte. It mirrors
// Iterator.resetWithStart, which follows start the other way and also
// remembers the start-path entry admitPrefix may list.
func (it *ReverseIterator) resetWithEnd(end []byte) {
	atLimit := it.bound != nil
	for k := 0; ; k++ {
		e := keyByte(end, k)
		i := it.nv.search(e)
		limit := notAtLimit
		if atLimit {
			limit = it.nextBound()
			if e > limit {
				atLimit = false
			}
		}
		if i < 0 {
			it.stack = append(it.stack, iterFrame{node: it.nv.pos, slot: -1 - i, limit: limit})
			return
		}
		it.stack = append(it.stack, iterFrame{node: it.nv.pos, slot: i, limit: limit})
		if err := it.descend(it.nv.child(i)); err != nil {
			it.fail(err)
			return
		}
	}
}

// Next advances to the next payload node and reports whether there is one.
func (it *ReverseIterator) Next() bool {
	n, err := it.advance()
	if it.fresh {
		it.fresh = false
		if it.delayed {
			it.reporting = it.admit
		}
	}
	return it.settle(n, err)
}

// Node returns the position of the current payload node.
func (it *ReverseIterator) Node() int64 { return it.node }

// Err returns the error that ended the iteration, if any.
func (it *ReverseIterator) Err() error { return it.err }

// advance visits the remaining slots of the top frame from high to low,
// descending into children, and reports a node's payload when its frame is
// popped.
//
// It mirrors Iterator.advance (iterator.go) with the direction turned, and
// adds the start-path reporting rule; the two loops stay separate for speed,
// as Iterator.advance's comment records.
func (it *ReverseIterator) advance() (int64, error) {
	for len(it.stack) > 0 {
		top := &it.stack[len(it.stack)-1]
		if it.nv.pos != top.node {
			if err := it.nv.load(&it.t.src, top.node); err != nil {
				return -1, err
			}
		}
		j := top.slot - 1
		tb := notAtLimit
		beyond := true
		if j >= 0 {
			tb = it.nv.transitionByte(j)
			if beyond = tb < top.limit; beyond {
				it.reporting = false // a smaller child than start's byte exists
			}
		}
		if beyond {
			node, limit := top.node, top.limit
			it.stack = it.stack[:len(it.stack)-1]
			if it.nv.flags != 0 {
				if limit == notAtLimit {
					return node, nil
				}
				if it.reporting {
					it.reporting = false // only the nearest prefix of start
					return node, nil
				}
			}
			continue
		}
		top.slot = j
		c := it.nv.child(j)
		if c == none {
			continue // DENSE hole
		}
		limit := notAtLimit
		if tb == top.limit {
			limit = it.nextBound()
		}
		if err := it.descend(c); err != nil {
			return -1, err
		}
		it.stack = append(it.stack, iterFrame{node: c, slot: it.nv.n, limit: limit})
	}
	return -1, nil
}
