package trie

// noLimit is the forward iterator's "not on end's path" limit: every
// transition byte is <= 256.
const noLimit = 256

// Iterator lists the payload nodes of a trie in ascending order of their
// paths (a node's own payload before its children), within optional bounds,
// exactly as Cassandra's ValueIterator (docs/format.md §9.5):
//
//	var it trie.Iterator
//	for it.Reset(t, start, end, true); it.Next(); {
//		use(it.Node())
//	}
//	if err := it.Err(); err != nil { … }
//
// end is inclusive: an entry equal to end or a stored prefix of it is
// listed, extensions of end are not. With admitPrefix, the entry at start and
// the nearest stored prefix of start with nothing stored between it and
// start are listed too; without it, neither is. Because entries are
// prefixes, the first and last results may lie just outside the real key
// range, and the caller checks them.
//
// An Iterator reuses its stack across Reset calls, so after warm-up a full
// pass does not allocate. It keeps end (not a copy) until the next Reset.
// A full pass reaches each node at most once; on corrupt bytes whose pointers
// share or loop, it stops with an error after reaching as many nodes as there
// are bytes.
type Iterator struct {
	iterCore       // bound is end
	first    int64 // result of the start walk, returned by the first Next (read only while fresh)
}

// Reset starts a new iteration over t from start to end (nil for unbounded).
func (it *Iterator) Reset(t *Trie, start, end []byte, admitPrefix bool) {
	it.first = -1
	if err := it.reset(t, end); err != nil {
		it.fail(err)
		return
	}
	if start == nil {
		it.resetNoStart()
	} else {
		it.resetWithStart(start, admitPrefix)
	}
}

// resetNoStart stacks the root, loaded by reset. It is
// ReverseIterator.resetNoEnd going forward: the root's frame starts before
// its first slot, and the root's own payload is the first result.
func (it *Iterator) resetNoStart() {
	limit := noLimit
	if it.bound != nil {
		limit = it.nextBound()
	}
	it.stack = append(it.stack, iterFrame{node: it.t.root, slot: -1, limit: limit})
	if it.nv.flags != 0 {
		it.first = it.t.root
	}
}

// resetWithStart follows start, stacking its path, and leaves the top frame
// just before the first child greater than start's next byte. It mirrors
// ReverseIterator.resetWithEnd, which follows end the other way and has no
// start-path candidate to remember.
func (it *Iterator) resetWithStart(start []byte, admitPrefix bool) {
	atLimit := it.bound != nil
	candidate := none
	for k := 0; ; k++ {
		s := keyByte(start, k)
		i := it.nv.search(s)
		if admitPrefix {
			if i == 0 || i == -1 {
				if it.nv.flags != 0 {
					candidate = it.nv.pos
				}
			} else {
				candidate = none
			}
		}
		limit := noLimit
		if atLimit {
			limit = it.nextBound()
			if s < limit {
				atLimit = false
			}
		}
		if i < 0 {
			it.stack = append(it.stack, iterFrame{node: it.nv.pos, slot: -i - 2, limit: limit})
			break
		}
		it.stack = append(it.stack, iterFrame{node: it.nv.pos, slot: i, limit: limit})
		if err := it.descend(it.nv.child(i)); err != nil {
			it.fail(err)
			return
		}
	}
	it.first = candidate
}

// Next advances to the next payload node and reports whether there is one.
func (it *Iterator) Next() bool {
	if it.fresh {
		it.fresh = false
		if it.first >= 0 {
			it.node = it.first
			return true
		}
	}
	return it.settle(it.advance())
}

// Node returns the position of the current payload node (valid after Next
// returned true); read it with Trie.Payload.
func (it *Iterator) Node() int64 { return it.node }

// Err returns the error that ended the iteration, if any.
func (it *Iterator) Err() error { return it.err }

// advance walks depth first from the top frame to the next node with a
// payload, popping frames whose remaining slots exceed their limit.
//
// It mirrors ReverseIterator.advance (reverse.go) slot for slot with the
// direction turned: that one steps slots down, stops below the limit and
// reports a payload when its frame is popped, where this one steps up, stops
// above it and reports on the way down. The two loops stay separate, not one
// loop over iterCore helpers or a direction flag, because a helper call for
// the top frame cost a full scan 3% more instructions (callgrind, measured
// for commit 8395c05, whose message records it). checkModel (golden_test.go)
// holds both to the same model, forward and reverse, on every trie it gets.
func (it *Iterator) advance() (int64, error) {
	for len(it.stack) > 0 {
		top := &it.stack[len(it.stack)-1]
		if it.nv.pos != top.node {
			if err := it.nv.load(&it.t.src, top.node); err != nil {
				return -1, err
			}
		}
		j := top.slot + 1
		tb := it.nv.transitionByte(j)
		if tb > top.limit {
			it.stack = it.stack[:len(it.stack)-1]
			continue
		}
		top.slot = j
		c := it.nv.child(j)
		if c == none {
			continue // DENSE hole
		}
		limit := noLimit
		if tb == top.limit {
			limit = it.nextBound()
		}
		if err := it.descend(c); err != nil {
			return -1, err
		}
		it.stack = append(it.stack, iterFrame{node: c, slot: -1, limit: limit})
		if it.nv.flags != 0 {
			return c, nil
		}
	}
	return -1, nil
}
