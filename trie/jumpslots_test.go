package trie

import (
	"bytes"
	"math/rand"
	"slices"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"
)

// slottedEntries returns keys shaped like the Murmur3 keys of a large
// index: 0x40, then for each of prefixes random two-byte token prefixes 2 to
// 1+fan third bytes, some followed by more bytes, so that the nodes below
// the jump table are the SPARSE_8 nodes slots hold. With stored, some token
// prefixes are keys themselves (a payload on such a node: no slot).
func slottedEntries(r *rand.Rand, prefixes, fan int, stored bool) []entry {
	var keys [][]byte
	for range prefixes {
		p := []byte{0x40, byte(r.Intn(256)), byte(r.Intn(256))}
		if stored && r.Intn(8) == 0 {
			keys = append(keys, p)
		}
		for range 2 + r.Intn(fan) {
			k := append(bytes.Clone(p), byte(r.Intn(256)))
			for range r.Intn(3) {
				k = append(k, byte(r.Intn(256)))
			}
			keys = append(keys, k)
		}
	}
	return sortedEntries(r, keys)
}

// Jump slots change no answer: random and hashed-key tries, against the
// same trie without them (and so without a table: sameWalks) and with the
// table alone, and the hot loops against the general walks (crossCheck).
func TestJumpSlotsModel(t *testing.T) {
	built := 0
	for seed := int64(1); seed <= 12; seed++ {
		r := rand.New(rand.NewSource(seed))
		var entries []entry
		switch seed % 4 {
		case 0:
			entries = slottedEntries(r, 200+r.Intn(500), 30, false)
		case 1:
			entries = slottedEntries(r, 50+r.Intn(300), 1+r.Intn(25), true)
		case 2:
			entries = randomEntries(r, 1+r.Intn(400), 1+r.Intn(5), []byte{0x40, 0x00, 0x01, 0x7F, 0xFF})
		default:
			entries = hashedEntries(r, 2000+r.Intn(4000))
		}
		// Random node types (no SPARSE_8 below the table: no slots) only
		// for the random tries.
		o := buildOpts{rnd: r, maxPad: []int{0, 300}[int(seed)%2], padChance: 0.1, anyType: seed%4 == 2}
		data, root := buildTrie(t, entries, o)
		tr := mustNew(t, data, root)
		ts := tr.WithJumpSlots()
		if !ts.JumpSlots() {
			continue
		}
		built++
		checkSlots(t, ts)
		tj := tr.WithJumpTable()
		m := collect(t, ts)
		require.Len(t, m.keys, len(entries), "seed %d", seed)
		checkModel(t, ts, m, r, 200)
		keys := crossKeys(r, entries, 500)
		for _, q := range keys {
			sameWalks(t, ts, tr, q)
			sameWalks(t, ts, tj, q)
		}
		crossCheck(t, ts, keys)
	}
	require.GreaterOrEqual(t, built, 6, "tries with jump slots")
}

// On damaged bytes a walk through the slots answers and fails exactly as a
// walk from the root: a slot holds the file's bytes, and a step reads no
// more of them than it would from the file.
func TestJumpSlotsDamaged(t *testing.T) {
	for _, padded := range []bool{false, true} {
		r := rand.New(rand.NewSource(13))
		entries := slottedEntries(r, 400, 20, false)
		o := buildOpts{rnd: r}
		if padded {
			o.maxPad, o.padChance = 200, 0.1 // nodes near the end of a slot's reach
		}
		clean, root := buildTrie(t, entries, o)
		rounds, withSlots := 150, 0
		if testing.Short() {
			rounds = 30
		}
		for range rounds {
			tr, err := New(Source{File: corruptCopy(r, clean)}, root)
			if err != nil {
				continue
			}
			ts := tr.WithJumpSlots()
			if !ts.JumpSlots() {
				continue
			}
			withSlots++
			checkSlots(t, ts)
			keys := crossKeys(r, entries, 60)
			for _, q := range keys {
				sameWalks(t, ts, tr, q)
			}
			crossCheck(t, ts, keys)
		}
		require.Greater(t, withSlots, rounds/2, "damaged tries with slots")
	}
}

// Slots are built only where they are used: not without a jump table (an
// early-open tail, an empty trie), and not when the nodes below the table
// are too wide for a slot. They take JumpSlotBytes, one cache line per
// entry.
func TestJumpSlotsWhere(t *testing.T) {
	require.Equal(t, 64, int(unsafe.Sizeof(jumpSlot{})), "a slot is one cache line")
	require.Equal(t, 4<<20, JumpSlotBytes)

	r := rand.New(rand.NewSource(3))
	data, root := buildTrie(t, slottedEntries(r, 300, 20, false), buildOpts{})
	tr := mustNew(t, data, root)
	ts := tr.WithJumpSlots()
	require.True(t, ts.JumpSlots())
	require.True(t, ts.JumpTable())
	require.False(t, tr.JumpSlots(), "WithJumpSlots returns a copy")
	require.Equal(t, JumpSlotBytes, len(ts.jump.slots)*int(unsafe.Sizeof(jumpSlot{})))
	require.Same(t, ts, ts.WithJumpSlots(), "slots are built once")
	tj := tr.WithJumpTable()
	require.False(t, tj.JumpSlots())
	require.True(t, tj.WithJumpSlots().JumpSlots(), "slots added to a trie with a table")

	cut := int(root)
	split, err := New(Source{File: data[:cut], Cutoff: int64(cut), Tail: data[cut:]}, root)
	require.NoError(t, err)
	require.False(t, split.WithJumpSlots().JumpSlots(), "early-open tail")
	require.False(t, mustNew(t, []byte{0x00}, 0).WithJumpSlots().JumpSlots(), "empty trie")

	// Two token prefixes with 100 third bytes each: the nodes below the
	// table are SPARSE_8 of 100 children (202 bytes), wider than a slot.
	var keys [][]byte
	for _, p := range [][2]byte{{0x12, 0x34}, {0x56, 0x78}} {
		for c := range 100 {
			keys = append(keys, []byte{0x40, p[0], p[1], byte(2 * c)})
		}
	}
	data, root = buildTrie(t, sortedEntries(r, keys), buildOpts{})
	wide := mustNew(t, data, root).WithJumpSlots()
	require.True(t, wide.JumpTable())
	require.False(t, wide.JumpSlots(), "nodes too wide for a slot")
}

// checkSlots checks every slot of ts against the file: a used slot holds
// its entry's node's count, transitions (padded with 0xFF) and pointers as
// the file has them; an unused one belongs to an empty entry, or to a node
// that is no SPARSE_8 without payload with increasing transitions, has too
// many children or does not load.
func checkSlots(t *testing.T, ts *Trie) {
	t.Helper()
	j := ts.jump
	used := 0
	for v, nx := range j.next {
		s := j.slot(v)
		if nx == 0 {
			require.Nil(t, s, "slot %04x of an empty entry", v)
			continue
		}
		var nv nodeView
		pos := int64(nx) - 1
		fits := nv.load(&ts.src, pos) == nil && nv.typ == sparse8 && nv.flags == 0 && nv.n <= slotMaxChildren && increasing(nv.b[2:2+nv.n])
		if !fits {
			require.Nil(t, s, "slot %04x: its node is no SPARSE_8 without payload with increasing transitions, or does not fit", v)
			continue
		}
		used++
		require.NotNil(t, s, "slot %04x", v)
		n := nv.n
		require.Equal(t, n+1, int(s[0]), "slot %04x: count", v)
		require.Equal(t, nv.b[2:2+n], s[slotTransitions:slotTransitions+n], "slot %04x: transitions", v)
		require.Equal(t, bytes.Repeat([]byte{0xFF}, slotPointers-slotTransitions-n), s[slotTransitions+n:slotPointers], "slot %04x: padding", v)
		require.Equal(t, nv.b[2+n:2+2*n], s[slotPointers:slotPointers+n], "slot %04x: pointers", v)
	}
	require.NotZero(t, used)
}

// FuzzJumpSlots: arbitrary bytes, root and key; walks through jump slots
// answer exactly as walks from the root, and the hot loops with slots as the
// general walks.
func FuzzJumpSlots(f *testing.F) {
	r := rand.New(rand.NewSource(1))
	slotted := slottedEntries(r, 60, 20, false)
	data, root := buildTrie(f, slotted, buildOpts{})
	f.Add(data, uint32(root), slotted[17].key)
	slotted = slottedEntries(r, 40, 10, true)
	data, root = buildTrie(f, slotted, buildOpts{rnd: r, maxPad: 100, padChance: 0.1})
	f.Add(data, uint32(root), slotted[30].key)
	f.Fuzz(func(t *testing.T, data []byte, root uint32, key []byte) {
		// sameWalks walks every prefix of key: quadratic. A slot is
		// stepped at the key's third byte or so; longer keys add walks
		// below it that the other fuzzers cover.
		key = key[:min(len(key), 64)]
		tr, err := New(Source{File: data}, int64(root%(uint32(len(data))+1)))
		if err != nil {
			return
		}
		ts := tr.WithJumpSlots()
		if !ts.JumpSlots() {
			return
		}
		sameWalks(t, ts, tr, key)
		var keys [][]byte
		for j := 0; j <= len(key); j += 1 + j/2 {
			keys = append(keys, key[:j], append(key[j:j:j], key...))
		}
		crossCheck(t, ts, keys)
	})
}

// slotSearch, the slots' search without branches, finds what searchSparse
// finds on increasing transitions: every count the slots hold (0..30),
// every byte, transitions at the ends of the byte range and in between,
// and whatever bytes lie in the slot past them.
func TestSlotSearch(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	for n := 0; n <= slotMaxChildren; n++ {
		for round := range 40 {
			s, tr := randomSlot(r, n, round%4 == 0)
			for b := range 256 {
				if got, want := slotSearch(&s, b), searchSparse(tr, b); got != want {
					t.Fatalf("transitions %x, byte %02x: slotSearch %d, searchSparse %d", tr, b, got, want)
				}
			}
		}
	}
}

// randomSlot returns a slot as buildSlots fills it for a node of n
// increasing random transitions (with ends, 0 and 255 among them when n >=
// 2), with random bytes in its pointers and past them, and the transitions.
func randomSlot(r *rand.Rand, n int, ends bool) (jumpSlot, []byte) {
	var s jumpSlot
	for i := range s {
		s[i] = byte(r.Intn(256)) // garbage past the pointers
	}
	var tr []byte
	for _, b := range r.Perm(256)[:n] {
		tr = append(tr, byte(b))
	}
	if ends && n >= 2 {
		// Both ends of the range: 0 and 255, and n-2 bytes between.
		tr = tr[:0]
		for _, b := range r.Perm(254)[:n-2] {
			tr = append(tr, byte(1+b))
		}
		tr = append(tr, 0, 255)
	}
	slices.Sort(tr)
	s[0] = byte(n + 1)
	copy(s[slotTransitions:], tr)
	for i := slotTransitions + n; i < slotPointers; i++ {
		s[i] = 0xFF
	}
	return s, tr
}

// slotStepCases calls check with every slot shape buildSlots makes (0 to
// slotMaxChildren increasing transitions, 0 and 255 among them, garbage past
// the pointers), pointers that are good, zero or reach before the file's
// start, positions in, at the ends of and past a 4,096-byte zero file, and
// greater branches: none, one and far away.
func slotStepCases(seed int64, check func(s *jumpSlot, tr, f []byte, pos, greater int64)) {
	r := rand.New(rand.NewSource(seed))
	f := make([]byte, 4096)
	for n := 0; n <= slotMaxChildren; n++ {
		for round := range 30 {
			s, tr := randomSlot(r, n, round%3 == 0)
			for i := range n {
				switch r.Intn(6) {
				case 0:
					s[slotPointers+i] = 0 // a bad pointer
				case 1:
					s[slotPointers+i] = 255 // beyond a small pos
				}
			}
			pos := []int64{0, 5, 127, 128, 200, 4095, 4096, 4097, 1 << 40}[round%9]
			greater := []int64{none, 3, 1 << 41}[round%3]
			check(&s, tr, f, pos, greater)
		}
	}
}

// TestSlotStepFile: slotStepFile answers slotStep's answer on every case of
// slotStepCases and every key byte, and touches (or prefetches) only
// inside the zero file.
func TestSlotStepFile(t *testing.T) {
	slotStepCases(22, func(s *jumpSlot, tr, f []byte, pos, _ int64) {
		for b := range 256 {
			var touched byte
			got := slotStepFile(s, f, pos, b, &touched)
			if want := slotStep(s, pos, b); got != want {
				t.Fatalf("transitions %x, pos %d, byte %02x: slotStepFile %d, slotStep %d", tr, pos, b, got, want)
			}
			if touched != 0 {
				t.Fatalf("touched %#x from a zero file", touched)
			}
		}
	})
}

// TestCeilingSlotStepFile: ceilingSlotStepFile answers ceilingSlotStep's
// answer, both results, as TestSlotStepFile checks slotStepFile.
func TestCeilingSlotStepFile(t *testing.T) {
	slotStepCases(23, func(s *jumpSlot, tr, f []byte, pos, greater int64) {
		for b := range 256 {
			var touched byte
			next, g := ceilingSlotStepFile(s, f, pos, greater, b, &touched)
			wantNext, wantG := ceilingSlotStep(s, pos, greater, b)
			if next != wantNext || g != wantG {
				t.Fatalf("transitions %x, pos %d, greater %d, byte %02x: ceilingSlotStepFile %d, %d; ceilingSlotStep %d, %d",
					tr, pos, greater, b, next, g, wantNext, wantG)
			}
			if touched != 0 {
				t.Fatalf("touched %#x from a zero file", touched)
			}
		}
	})
}
