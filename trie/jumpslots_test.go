package trie

import (
	"bytes"
	"math/rand"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"
)

// Jump slots change no answer: random and hashed-key tries, against the
// same trie without them (and so without a table: sameWalks) and with the
// table alone, and the hot loops against the general walks (crossCheck).
func TestJumpSlotsModel(t *testing.T) {
	built := 0
	for seed := int64(1); seed <= 12; seed++ {
		r := rand.New(rand.NewSource(seed))
		var entries []entry
		switch seed % 3 {
		case 0:
			entries = hashedEntries(r, 2000+r.Intn(4000))
		case 1:
			entries = randomEntries(r, 1+r.Intn(400), 1+r.Intn(5), []byte{0x40, 0x00, 0x01, 0x7F, 0xFF})
		default:
			entries = hashedEntries(r, 1+r.Intn(300))
		}
		o := buildOpts{rnd: r, maxPad: []int{0, 300}[int(seed)%2], padChance: 0.1, anyType: seed%2 == 0}
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
		entries := hashedEntries(r, 4000)
		o := buildOpts{rnd: r}
		if padded {
			o.maxPad, o.padChance = 200, 0.1 // nodes near the end of a slot's reach
		}
		clean, root := buildTrie(t, entries, o)
		m := collect(t, mustNew(t, clean, root))
		rounds, withSlots := 150, 0
		if testing.Short() {
			rounds = 30
		}
		for range rounds {
			buf := bytes.Clone(clean)
			for range 1 + r.Intn(6) {
				p := len(buf) - 1 - r.Intn(min(len(buf), 3000))
				if r.Intn(4) == 0 {
					p = r.Intn(len(buf))
				}
				buf[p] = byte(r.Intn(256))
			}
			tr, err := New(Source{File: buf}, root)
			if err != nil {
				continue
			}
			ts := tr.WithJumpSlots()
			if !ts.JumpSlots() {
				continue
			}
			withSlots++
			checkSlots(t, ts)
			keys := make([][]byte, 0, 60)
			for range 60 {
				q := bytes.Clone(m.keys[r.Intn(len(m.keys))])
				if r.Intn(2) == 0 {
					q[len(q)-1] ^= byte(1 + r.Intn(255))
				}
				sameWalks(t, ts, tr, q)
				keys = append(keys, q)
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
	data, root := buildTrie(t, hashedEntries(r, 2000), buildOpts{})
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
// the bytes from its entry's node on, covering the node's fixed part; an
// unused one belongs to an empty entry or a node that does not fit (or
// does not load).
func checkSlots(t *testing.T, ts *Trie) {
	t.Helper()
	j, f := ts.jump, ts.src.File
	used := 0
	for v, nx := range j.next {
		s := j.slot(v)
		if nx == 0 {
			require.Nil(t, s, "slot %04x of an empty entry", v)
			continue
		}
		pos := int64(nx) - 1
		var nv nodeView
		fits := nv.load(&ts.src, pos) == nil && nv.ppos < slotBytes
		if !fits {
			require.Nil(t, s, "slot %04x: its node does not fit", v)
			continue
		}
		used++
		require.Equal(t, f[pos:min(int64(len(f)), pos+slotBytes-1)], s, "slot %04x", v)
		require.GreaterOrEqual(t, len(s), nv.ppos, "slot %04x covers the fixed part", v)
	}
	require.NotZero(t, used)
}

// FuzzJumpSlots: arbitrary bytes, root and key; walks through jump slots
// answer exactly as walks from the root, and the hot loops with slots as the
// general walks.
func FuzzJumpSlots(f *testing.F) {
	r := rand.New(rand.NewSource(1))
	hashed := hashedEntries(r, 600)
	data, root := buildTrie(f, hashed, buildOpts{})
	f.Add(data, uint32(root), hashed[17].key)
	data, root = buildTrie(f, hashed, buildOpts{rnd: r, anyType: true, maxPad: 100, padChance: 0.1})
	f.Add(data, uint32(root), hashed[100].key)
	f.Fuzz(func(t *testing.T, data []byte, root uint32, key []byte) {
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
