package trie

// Walker runs point lookups (Exact, Ceiling, Floor, First, Last) on one
// trie. It holds only a decoded node, never allocates, and is meant to be
// kept per goroutine: copy it by value or embed it. The zero Walker must be
// Reset before use.
type Walker struct {
	t  *Trie
	nv nodeView
}

// Walker returns a walker over t.
func (t *Trie) Walker() Walker { return Walker{t: t} }

// Reset points w at t.
func (w *Walker) Reset(t *Trie) { *w = Walker{t: t} }

// keyByte returns key[i] as an int, or eos past the end.
func keyByte(key []byte, i int) int {
	if i < len(key) {
		return int(key[i])
	}
	return eos
}

// descend loads the child c of the current node, turning the sentinels of
// nodeView.child into errors.
func (w *Walker) descend(c int64) error {
	if c < 0 {
		if c == badPointer {
			return corrupt(w.nv.pos, reasonBadPointer)
		}
		return corrupt(w.nv.pos, reasonMissingChild)
	}
	return w.nv.load(&w.t.src, c)
}

// Exact follows key from the root as Cassandra's Walker.follow does and
// applies the structural part of exactCandidate (docs/format.md §9.3): the node the walk
// stopped at is a candidate if the whole key was consumed or the node has no
// children, and it carries payload flags. A candidate only shares a stored
// prefix with key; the caller confirms it (hash byte, then the real key).
func (w *Walker) Exact(key []byte) (node int64, ok bool, err error) {
	if err := w.nv.load(&w.t.src, w.t.root); err != nil {
		return -1, false, err
	}
	// Each step consumes a key byte, and search(eos) never matches, so the
	// loop runs at most len(key)+1 times.
	for k := 0; ; k++ {
		b := keyByte(key, k)
		i := w.nv.search(b)
		if i < 0 {
			if (b == eos || w.nv.n == 0) && w.nv.flags != 0 {
				return w.nv.pos, true, nil
			}
			return -1, false, nil
		}
		if err := w.descend(w.nv.child(i)); err != nil {
			return -1, false, err
		}
	}
}

// Ceiling finds the candidates for the smallest entry >= key (docs/format.md §9.4):
// atKey is the node the walk stopped at if the key was consumed there or the
// node has no children, and it has a payload (its stored prefix may stand for
// a key below, at or above key: the caller compares real keys); greater is
// the smallest entry of the nearest branch entirely above key. Either is -1
// when absent. The caller tries atKey first, then greater.
func (w *Walker) Ceiling(key []byte) (atKey, greater int64, err error) {
	atKey, greater = -1, none
	if err := w.nv.load(&w.t.src, w.t.root); err != nil {
		return -1, -1, err
	}
	for k := 0; ; k++ {
		b := keyByte(key, k)
		i := w.nv.search(b)
		greater = w.nv.greaterTransition(i, greater)
		if greater == badPointer {
			return -1, -1, corrupt(w.nv.pos, reasonBadPointer)
		}
		if i < 0 {
			if (b == eos || w.nv.n == 0) && w.nv.flags != 0 {
				atKey = w.nv.pos
			}
			break
		}
		if err := w.descend(w.nv.child(i)); err != nil {
			return -1, -1, err
		}
	}
	if greater != none {
		if greater, err = w.goMin(greater); err != nil {
			return -1, -1, err
		}
	}
	return atKey, greater, nil
}

// Floor finds the candidates for the largest entry <= key (docs/format.md §9.4, Cassandra's
// prefixAndNeighbours): atKey is the nearest node on key's path that has a
// payload and after which the walk never branched left, i.e. a stored prefix
// of key (or key itself) with nothing stored between it and key; lesser is
// the largest entry of the nearest branch entirely below key. Either is -1
// when absent. The caller tries atKey first, then lesser.
func (w *Walker) Floor(key []byte) (atKey, lesser int64, err error) {
	atKey, lesser = -1, none
	if err := w.nv.load(&w.t.src, w.t.root); err != nil {
		return -1, -1, err
	}
	for k := 0; ; k++ {
		b := keyByte(key, k)
		i := w.nv.search(b)
		if i == 0 || i == -1 {
			if w.nv.flags != 0 {
				atKey = w.nv.pos
			}
		} else {
			lesser = w.nv.lesserTransition(i, lesser)
			if lesser == badPointer {
				return -1, -1, corrupt(w.nv.pos, reasonBadPointer)
			}
			atKey = -1
		}
		if i < 0 {
			break
		}
		if err := w.descend(w.nv.child(i)); err != nil {
			return -1, -1, err
		}
	}
	if lesser != none {
		if lesser, err = w.goMax(lesser, false); err != nil {
			return -1, -1, err
		}
	}
	return atKey, lesser, nil
}

// First returns the smallest entry (goMin of the root), or -1 when the trie
// is empty (a root without payload or children).
func (w *Walker) First() (int64, error) { return w.goMinFrom(w.t.root, true) }

// Last returns the largest entry (goMax of the root), or -1 when the trie is
// empty.
func (w *Walker) Last() (int64, error) { return w.goMax(w.t.root, true) }

func (w *Walker) goMin(pos int64) (int64, error) { return w.goMinFrom(pos, false) }

// goMinFrom descends through first children until a node with a payload.
// Positions strictly decrease, so it stops. Reaching a leaf without payload
// is corruption, except for the root of an empty trie.
func (w *Walker) goMinFrom(pos int64, isRoot bool) (int64, error) {
	if err := w.nv.load(&w.t.src, pos); err != nil {
		return -1, err
	}
	for w.nv.flags == 0 {
		if w.nv.n == 0 {
			if isRoot && w.nv.pos == w.t.root {
				return -1, nil
			}
			return -1, corrupt(w.nv.pos, reasonNoPayload)
		}
		if err := w.descend(w.nv.child(0)); err != nil {
			return -1, err
		}
	}
	return w.nv.pos, nil
}

// goMax descends through last children until a leaf (payloads on the way are
// smaller than their children and are skipped).
func (w *Walker) goMax(pos int64, isRoot bool) (int64, error) {
	if err := w.nv.load(&w.t.src, pos); err != nil {
		return -1, err
	}
	for w.nv.n != 0 {
		if err := w.descend(w.nv.child(w.nv.n - 1)); err != nil {
			return -1, err
		}
	}
	if w.nv.flags == 0 {
		if isRoot && w.nv.pos == w.t.root {
			return -1, nil
		}
		return -1, corrupt(w.nv.pos, reasonNoPayload)
	}
	return w.nv.pos, nil
}
