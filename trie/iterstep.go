package trie

// iterCore is the state and the steps Iterator and ReverseIterator share:
// both walk a bounded path byte by byte, keep a stack of frames and descend
// into children under the same node budget; only the direction differs, and
// with it which bound (end going forward, start going backward) sets each
// frame's limit.
type iterCore struct {
	t        *Trie
	nv       nodeView
	stack    []iterFrame
	bound    []byte // end (Iterator) or start (ReverseIterator); kept, not copied
	boundPos int    // bytes of bound consumed as limits
	budget   int64
	fresh    bool // Next not called since Reset
	node     int64
	err      error
}

// iterFrame is one level of an iterator's path: the node, the slot last
// visited (or about to be resumed from) and the bound byte at this depth.
type iterFrame struct {
	node  int64
	slot  int
	limit int
}

// reset empties the stack and the error, and arms the node budget for a new
// pass over t limited by bound, then loads t's root into nv.
func (it *iterCore) reset(t *Trie, bound []byte) error {
	it.t, it.bound, it.boundPos = t, bound, 0
	it.stack = it.stack[:0]
	it.budget = t.src.size()
	it.fresh, it.node, it.err = true, -1, nil
	it.nv.pos = -1
	return it.nv.load(&t.src, t.root)
}

// fail ends the iteration with err.
func (it *iterCore) fail(err error) {
	it.err = err
	it.stack = it.stack[:0]
	it.fresh = false
}

// settle records what an advance found: the next payload node, or none
// (n < 0) with the error that ended the iteration, if any. It returns Next's
// answer.
func (it *iterCore) settle(n int64, err error) bool {
	if err != nil {
		it.fail(err)
	}
	it.node = n
	return n >= 0
}

// nextBound consumes the next byte of the bound (eos once it is exhausted,
// without moving on).
func (it *iterCore) nextBound() int {
	b := keyByte(it.bound, it.boundPos)
	if b != eos {
		it.boundPos++
	}
	return b
}

// descend loads child ch of the node in nv into nv, charging the node budget.
func (it *iterCore) descend(ch int64) error {
	return descendCharged(&it.nv, &it.t.src, &it.budget, ch)
}

// descendCharged loads child c of the node in nv into nv, charging one node
// to budget: a full pass reaches each node at most once, so on corrupt bytes
// whose pointers share or loop the walk stops after as many nodes as the
// trie has bytes.
func descendCharged(nv *nodeView, src *Source, budget *int64, c int64) error {
	if c < 0 {
		if c == badPointer {
			return corrupt(nv.pos, reasonBadPointer)
		}
		return corrupt(nv.pos, reasonMissingChild)
	}
	if *budget--; *budget < 0 {
		return corrupt(c, reasonNotATree)
	}
	return nv.load(src, c)
}
