package trie

import (
	"bytes"
	"encoding/binary"
	"math/rand"
	"testing"

	"github.com/stretchr/testify/require"
)

// hashedEntries returns n sorted unique keys shaped like Murmur3 keys'
// encodings: the 0x40 every key starts with, then random bytes (the token),
// so the trie has a one-node chain and two wide levels below it, the shape
// the jump table is for.
func hashedEntries(r *rand.Rand, n int) []entry {
	seen := map[string]bool{}
	var keys [][]byte
	for len(keys) < n {
		k := make([]byte, 1+2+r.Intn(5))
		k[0] = 0x40
		for i := 1; i < len(k); i++ {
			k[i] = byte(r.Intn(256))
		}
		if !seen[string(k)] {
			seen[string(k)] = true
			keys = append(keys, k)
		}
	}
	return sortedEntries(r, keys)
}

// sameWalks checks that Exact, ExactPrefix, Ceiling and CeilingPrefix on a
// (the trie with its jump table) answer q exactly as on b (the same bytes
// without), errors and payloads included.
func sameWalks(t *testing.T, a, b *Trie, q []byte) {
	t.Helper()
	wa, wb := a.Walker(), b.Walker()
	na, oka, ea := wa.Exact(q)
	nb, okb, eb := wb.Exact(q)
	if na != nb || oka != okb || !sameError(ea, eb) {
		t.Fatalf("Exact(%x): with the table %d %v %v, without %d %v %v", q, na, oka, ea, nb, okb, eb)
	}
	if oka {
		fa, pa := wa.Payload()
		fb, pb := wb.Payload()
		if fa != fb || !bytes.Equal(pa, pb) {
			t.Fatalf("Exact(%x): payload %x/%x with the table, %x/%x without", q, fa, pa, fb, pb)
		}
	}
	aa, ga, ea := wa.Ceiling(q)
	ab, gb, eb := wb.Ceiling(q)
	if aa != ab || ga != gb || !sameError(ea, eb) {
		t.Fatalf("Ceiling(%x): with the table %d %d %v, without %d %d %v", q, aa, ga, ea, ab, gb, eb)
	}
	for j := 0; j <= len(q); j++ {
		na, oka, ma, ea := wa.ExactPrefix(q[:j])
		nb, okb, mb, eb := wb.ExactPrefix(q[:j])
		if na != nb || oka != okb || ma != mb || !sameError(ea, eb) {
			t.Fatalf("ExactPrefix(%x): with the table %d %v %v %v, without %d %v %v %v", q[:j], na, oka, ma, ea, nb, okb, mb, eb)
		}
		aa, ga, ma, ea := wa.CeilingPrefix(q[:j])
		ab, gb, mb, eb := wb.CeilingPrefix(q[:j])
		if aa != ab || ga != gb || ma != mb || !sameError(ea, eb) {
			t.Fatalf("CeilingPrefix(%x): with the table %d %d %v %v, without %d %d %v %v", q[:j], aa, ga, ma, ea, ab, gb, mb, eb)
		}
	}
}

// The jump table changes no answer on well-formed tries: random tries of
// every shape (payloads on inner nodes, prefixes, holes, padding, random
// node types) and hashed-key tries, against the model and against the same
// trie without a table.
func TestJumpTableModel(t *testing.T) {
	wide := func() []byte {
		var a []byte
		for b := 0; b < 256; b += 1 + b%3 {
			a = append(a, byte(b))
		}
		return a
	}()
	built := 0
	for seed := int64(1); seed <= 16; seed++ {
		r := rand.New(rand.NewSource(seed))
		var entries []entry
		switch seed % 4 {
		case 0:
			entries = hashedEntries(r, 3000+r.Intn(3000))
		case 1:
			entries = randomEntries(r, 1+r.Intn(400), 1+r.Intn(5), wide)
		case 2:
			entries = randomEntries(r, 1+r.Intn(300), 1+r.Intn(6), []byte{0x00, 0x01, 0xFF})
		default:
			entries = hashedEntries(r, 1+r.Intn(50))
		}
		o := buildOpts{rnd: r, maxPad: []int{0, 300, 5000}[int(seed)%3], padChance: 0.1, anyType: seed%2 == 0}
		data, root := buildTrie(t, entries, o)
		tr := mustNew(t, data, root)
		tj := tr.WithJumpTable()
		if !tj.JumpTable() {
			continue
		}
		built++
		checkJumpEntries(t, tj)
		m := collect(t, tj)
		require.Len(t, m.keys, len(entries), "seed %d", seed)
		checkModel(t, tj, m, r, 300)
		w := tj.Walker()
		for _, k := range m.keys {
			probeModel(t, &w, m, k)
			sameWalks(t, tj, tr, k)
		}
		for range 2000 {
			q := bytes.Clone(m.keys[r.Intn(len(m.keys))])
			if len(q) > 1 && r.Intn(2) == 0 {
				q[1+r.Intn(len(q)-1)] = byte(r.Intn(256))
			}
			if r.Intn(3) == 0 {
				q = append(q, byte(r.Intn(256)))
			}
			probeModel(t, &w, m, q)
			sameWalks(t, tj, tr, q)
		}
	}
	require.GreaterOrEqual(t, built, 8, "tries with a jump table")
}

// On damaged bytes a walk through the jump table answers, and fails, exactly
// as a walk from the root over the same bytes: the table is built with the
// walkers' own steps, and an entry whose steps stop, fail or disagree sends
// its keys down from the root.
func TestJumpTableDamaged(t *testing.T) {
	for _, anyType := range []bool{false, true} {
		r := rand.New(rand.NewSource(12))
		entries := hashedEntries(r, 4000)
		// Cassandra's node types (SPARSE below the chain at this size), or
		// random ones (DENSE among them, which the table reads in one pass).
		clean, root := buildTrie(t, entries, buildOpts{rnd: r, anyType: anyType})
		damageJumps(t, r, clean, root)
	}
}

func damageJumps(t *testing.T, r *rand.Rand, clean []byte, root int64) {
	m := collect(t, mustNew(t, clean, root))
	buf := make([]byte, len(clean))
	rounds := 200
	if testing.Short() {
		rounds = 40
	}
	for range rounds {
		copy(buf, clean)
		for range 1 + r.Intn(6) {
			// Mostly the top of the trie (the last bytes), which the
			// table covers.
			p := len(buf) - 1 - r.Intn(min(len(buf), 2000))
			if r.Intn(4) == 0 {
				p = r.Intn(len(buf))
			}
			buf[p] = byte(r.Intn(256))
		}
		tr, err := New(Source{File: buf}, root)
		if err != nil {
			continue
		}
		tj := tr.WithJumpTable()
		checkJumpEntries(t, tj)
		for range 50 {
			q := bytes.Clone(m.keys[r.Intn(len(m.keys))])
			if r.Intn(2) == 0 {
				q[len(q)-1] ^= byte(1 + r.Intn(255))
			}
			sameWalks(t, tj, tr, q)
		}
	}
}

// A table is built only where it can be used: not for a trie with an
// early-open tail, and not for an empty trie.
func TestJumpTableWhere(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	data, root := buildTrie(t, hashedEntries(r, 2000), buildOpts{})
	tr := mustNew(t, data, root)
	require.True(t, tr.WithJumpTable().JumpTable())
	require.False(t, tr.JumpTable(), "WithJumpTable returns a copy")
	cut := int(root)
	split, err := New(Source{File: data[:cut], Cutoff: int64(cut), Tail: data[cut:]}, root)
	require.NoError(t, err)
	require.False(t, split.WithJumpTable().JumpTable(), "early-open tail")
	empty := mustNew(t, []byte{0x00}, 0)
	require.False(t, empty.WithJumpTable().JumpTable(), "empty trie")
}

// checkJumpEntries recomputes every entry of tj's table (if it has one) with
// bothSteps, byte by byte, loading each node again (buildJump loads each
// second-level node once for its 256 entries).
func checkJumpEntries(t *testing.T, tj *Trie) {
	t.Helper()
	j := tj.jump
	if j == nil {
		return
	}
	w := tj.Walker()
	top, gTop, ok := w.bothSteps(tj.root, none, j.prefix)
	require.True(t, ok, "the chain")
	for b1 := range 256 {
		n1, g1, ok1 := w.bothSteps(top, gTop, []byte{byte(b1)})
		for b2 := range 256 {
			v := b1<<8 | b2
			var next, greater uint32
			if ok1 {
				if n, g, ok := w.bothSteps(n1, g1, []byte{byte(b2)}); ok {
					next, greater = uint32(n+1), uint32(g+1)
				}
			}
			if j.next[v] != next || j.greater[v] != greater {
				t.Fatalf("entry %04x: table %d/%d, the steps %d/%d", v, j.next[v], j.greater[v], next, greater)
			}
		}
	}
	checkEntryWord(t, j)
}

// checkEntryWord checks that entryWord finds what entry finds for keys of 8
// bytes on table j (when its depth allows entryWord): every value of the
// two bytes after the chain, after the chain and after the chain with one
// byte changed.
func checkEntryWord(t *testing.T, j *jumpTable) {
	t.Helper()
	if j.depth > 8 {
		return
	}
	for i := -1; i < len(j.prefix); i++ {
		key := make([]byte, 8)
		copy(key, j.prefix)
		if i >= 0 {
			key[i]++ // a key beside the chain
		}
		for v := range jumpEntries {
			key[len(j.prefix)], key[len(j.prefix)+1] = byte(v>>8), byte(v)
			key[7] ^= byte(v) // bytes past the entry's do not matter
			if got, want := j.entryWord(binary.BigEndian.Uint64(key)), j.entry(key); got != want || entryOfWord(j, key) != want {
				t.Fatalf("key %x: entryWord %d, entryOfWord %d, entry %d", key, got, entryOfWord(j, key), want)
			}
			if got := entryOfWord(j, key[:7]); got != byteEntry {
				t.Fatalf("key %x: entryOfWord %d, not byteEntry", key[:7], got)
			}
		}
	}
}
