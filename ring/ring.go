package ring

// Ring rotates three byte buffers through the roles scratch/Retained,
// Current and Previous (see the package documentation). The zero value is an
// empty ring ready for use. A Ring is not safe for concurrent use.
type Ring struct {
	// slots and same have a fourth entry, never used, so that an index
	// masked with &3 is in range for the compiler: it then drops the
	// bounds checks that Scratch, Commit and Current would run per key: a
	// warm partition index Add of 1M Murmur3 UUID keys ran 170.3
	// instructions per key in Add (which inlines them) with three entries,
	// 166.3 with four (callgrind as in partitionindex's Builder.Add, at
	// edd8b1b and the commit that made this change).
	slots [4][]byte
	// same[i] is how many leading bytes of slots[i] are known to equal
	// Current's (Current's own entry is its length), from the shared
	// lengths CommitShared was told; 0 where nothing is known. Reuse hands
	// the free slot's entry to an encoder that keeps those bytes.
	same [4]int
	cur  int // index of Current; Previous is cur+2 and scratch/Retained cur+1 (mod 3)
	n    int // keys committed since the last Reset, at most 3
	// scratched records that Scratch handed out the Retained slot, whose
	// old bytes are then no longer guaranteed.
	scratched bool
}

// prev and free step around the ring without a division or a branch: a
// table lookup each. With the branches of cur+1 and cur+2 mod 3, warm
// builds ran 432.9 instructions and 1.43 simulated mispredicted branches
// per key (1M Murmur3 UUID keys), 822.8 and 5.66 (the 16,384-key blob set
// without a shared prefix) and 1,024.8 and 5.65 (behind 64 shared bytes);
// with the tables 431.2 and 1.09, 812.9 and 5.42, 1,014.8 and 4.99
// (callgrind --branch-sim=yes as in partitionindex's Builder.Add, at
// a331e6a and the commit that made this change).
func (r *Ring) prev() int { return ringPrev[r.cur&3] }
func (r *Ring) free() int { return ringNext[r.cur&3] }

// ringNext and ringPrev are the next and previous index mod 3 (the fourth
// entries are never used).
var (
	ringNext = [4]int{1, 2, 0, 0}
	ringPrev = [4]int{2, 0, 1, 0}
)

// Scratch returns the free slot truncated to length 0 with its capacity
// kept. Append the new key's encoding to it and pass the result to Commit.
// Calling Scratch invalidates Retained.
func (r *Ring) Scratch() []byte {
	r.scratched = true
	f := r.free()
	r.same[f&3] = 0
	return r.slots[f&3][:0]
}

// Reuse returns the free slot with its old bytes and how many of them are
// known to equal Current's leading bytes (same <= len(slot)): an encoder
// writing a key that shares a long prefix with Current keeps those bytes
// and copies only the part of the shared prefix that the slot lacks. Pass
// the result to CommitShared. Like Scratch, Reuse invalidates Retained;
// and until CommitShared the slot counts as sharing nothing with Current,
// so a key that is refused after the slot was written over (its bytes are
// then unknown) costs the next Reuse a full copy, never wrong bytes.
func (r *Ring) Reuse() (slot []byte, same int) {
	r.scratched = true
	f := r.free() & 3
	same = r.same[f]
	r.same[f] = 0
	return r.slots[f], same
}

// Commit stores b (usually the slice returned by Scratch after appending,
// possibly reallocated) as the new Current and rotates: the old Current
// becomes Previous and the old Previous becomes Retained, whose slot is the
// next Scratch. No bytes are copied. b must not alias Current or Previous.
func (r *Ring) Commit(b []byte) {
	r.same = [4]int{}
	r.rotate(b)
}

// CommitLen is Commit(slot[:n]) for the slot Scratch returned, written in
// place within its capacity (n <= its capacity): the slot keeps its array,
// so only its length is stored, not the slice's pointer again (with the
// write barrier that store runs while the garbage collector marks). The
// partition index builder writes a Murmur3 key this way, in fixed-size
// moves into a slot with room for it: a warm Add of 1M Murmur3 UUID keys
// ran 438.5 instructions per key with Commit, 431.9 with CommitLen
// (callgrind as in partitionindex's Builder.Add, at e1bdcac and the commit
// that made this change).
func (r *Ring) CommitLen(n int) {
	r.same = [4]int{}
	f := r.free()
	r.slots[f&3] = r.slots[f&3][:n]
	r.cur = f
	r.scratched = false
	if r.n < 3 {
		r.n++
	}
}

// CommitShared is Commit for a key b whose first shared bytes are known to
// equal Current's: b's diff point with Current, less one, so shared is at
// most the length of either (0 if there is no Current). The ring then knows
// how much of each slot equals the new Current: the old Current shares
// shared bytes with it, and the old Previous, which shared same bytes with
// the old Current, at least min(same, shared). Reuse reports that for the
// slot it hands out.
func (r *Ring) CommitShared(b []byte, shared int) {
	// rotate, written out with the shared lengths and with the free and
	// previous slots stepped to directly, so that the whole commit is
	// inlined: it runs once per key of a ByteOrdered build.
	c := r.cur & 3
	f, p := ringNext[c], ringPrev[c]
	r.same[p&3] = min(r.same[p&3], shared)
	r.same[c] = shared
	r.slots[f&3] = b
	r.same[f&3] = len(b)
	r.cur = f
	r.scratched = false
	if r.n < 3 {
		r.n++
	}
}

// rotate makes b, written into the free slot, the new Current.
func (r *Ring) rotate(b []byte) {
	f := r.free()
	r.slots[f&3] = b
	r.cur = f
	r.scratched = false
	if r.n < 3 {
		r.n++
	}
}

// Amend replaces Current with b, which holds the same key encoded further:
// for an encoder that writes the part of a key that decides most
// comparisons at once and the rest only when a comparison reaches it (the
// partition index builder does this for Murmur3 keys). b may share
// Current's memory and may be a reallocation of it; Current must not have
// been handed to a reader that keeps it (the trie gets a key only once it
// is Previous). Amend does not rotate.
func (r *Ring) Amend(b []byte) {
	if r.n > 0 {
		// The bytes Current had are unchanged, so what the other slots
		// share with it still holds.
		r.slots[r.cur] = b
		r.same[r.cur] = len(b)
	}
}

// Current returns the most recently committed key, or nil if there is none.
func (r *Ring) Current() []byte {
	if r.n < 1 {
		return nil
	}
	return r.slots[r.cur&3]
}

// Previous returns the key committed before Current, or nil.
func (r *Ring) Previous() []byte {
	if r.n < 2 {
		return nil
	}
	return r.slots[r.prev()]
}

// Retained returns the key committed before Previous, or nil if there is
// none or if Scratch has been called since the last Commit (its slot is then
// being overwritten).
func (r *Ring) Retained() []byte {
	if r.n < 3 || r.scratched {
		return nil
	}
	return r.slots[r.free()]
}

// Len returns how many of Current, Previous and Retained hold keys (0 to 3),
// ignoring whether Scratch has invalidated Retained.
func (r *Ring) Len() int { return r.n }

// Reset forgets all keys but keeps the buffers' capacity.
func (r *Ring) Reset() {
	for i := range r.slots {
		r.slots[i] = r.slots[i][:0]
	}
	r.same = [4]int{}
	r.cur, r.n, r.scratched = 0, 0, false
}
