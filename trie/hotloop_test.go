package trie

import (
	"bytes"
	"math/rand"
	"testing"

	"github.com/stretchr/testify/require"
)

// The cross-check of the two hand-inlined hot places with the general
// functions they mirror (as hash/crc32's testCrossCheck ties its assembly to
// the portable code): exactFile and ceilingFile against exactWalk and
// ceilingWalk (walkfile.go), and the batch lane loop against exactWalk
// (batch.go). Both sides run on the same trie, so every answer, payload and
// error must be identical, on well-formed tries of every node type and page
// size and on the same bytes corrupted.

// crossCheck compares, for every key of keys, the hot loops with the
// general walks: Exact and Ceiling whole and cut as prefixes, and ExactBatch and ExactBatchCold over all the keys at once
// (every other one as a prefix).
func crossCheck(t *testing.T, tr *Trie, keys [][]byte) {
	t.Helper()
	hot, general := tr.Walker(), tr.Walker()
	if tr.src.Tail != nil {
		t.Fatal("crossCheck needs a trie without a tail: the hot loops walk File alone")
	}
	for _, key := range keys {
		// Every prefix of a short key; of a long one (a fuzzer's), a few
		// dozen, so that the check stays linear in the key's length.
		step := max(1, len(key)/32)
		for j := 0; j <= len(key); j += step {
			for _, partial := range []bool{false, true} {
				q := key[:j]
				hn, hok, hmore, herr := hot.exactFile(q, partial)
				gn, gok, gmore, gerr := general.exactWalk(q, partial)
				if hn != gn || hok != gok || hmore != gmore || !sameError(herr, gerr) {
					t.Fatalf("exact(%x, partial %v): hot loop %d %v %v %v, general %d %v %v %v", q, partial, hn, hok, hmore, herr, gn, gok, gmore, gerr)
				}
				if hok {
					hf, hp := hot.Payload()
					gf, gp := general.Payload()
					if hf != gf || !bytes.Equal(hp, gp) {
						t.Fatalf("exact(%x): hot loop payload %x/%x, general %x/%x", q, hf, hp, gf, gp)
					}
				}
				ha, hg, hmore, herr := hot.ceilingFile(q, partial)
				ga, gg, gmore, gerr := general.ceilingWalk(q, partial)
				if ha != ga || hg != gg || hmore != gmore || !sameError(herr, gerr) {
					t.Fatalf("ceiling(%x, partial %v): hot loop %d %d %v %v, general %d %d %v %v", q, partial, ha, hg, hmore, herr, ga, gg, gmore, gerr)
				}
			}
		}
	}
	for _, cold := range []bool{false, true} {
		probes := make([]Probe, len(keys))
		for i, k := range keys {
			probes[i] = Probe{Key: k, Partial: i%2 == 1}
			if i%3 != 0 {
				// The payload check, with flags that some payloads reach
				// and a byte that some payloads start with.
				probes[i].CheckFlags, probes[i].Check = uint8(1+i%15), byte(i%4)
			}
		}
		hot.exactBatch(probes, cold)
		for i, p := range probes {
			gn, gok, gmore, gerr := general.exactWalk(p.Key, p.Partial)
			var gf uint8
			var gp []byte
			if gok {
				gf, gp = general.Payload()
			}
			// The check, applied to the general walk's hit.
			gmis := gok && p.CheckFlags != 0 && gf >= p.CheckFlags && len(gp) > 0 && gp[0] != p.Check
			if gmis {
				gok = false
			}
			if p.Mismatch != gmis {
				t.Fatalf("batch (cold %v) probe %d (%x): mismatch %v, the check on the general walk's hit says %v", cold, i, p.Key, p.Mismatch, gmis)
			}
			if p.Node != gn || p.OK != gok || p.More != gmore || !sameError(p.Err, gerr) {
				t.Fatalf("batch (cold %v) probe %d (%x, partial %v): lane loop %d %v %v %v, general %d %v %v %v", cold, i, p.Key, p.Partial, p.Node, p.OK, p.More, p.Err, gn, gok, gmore, gerr)
			}
			if p.Flags != gf || !bytes.Equal(p.Payload, gp) {
				t.Fatalf("batch (cold %v) probe %d (%x): payload %x/%x, general %x/%x", cold, i, p.Key, p.Flags, p.Payload, gf, gp)
			}
		}
	}
}

// crossKeys returns probe keys for a trie of entries: every stored key, a
// byte added to some and one changed in others, random keys over the
// entries' bytes, and the empty key.
func crossKeys(r *rand.Rand, entries []entry, n int) [][]byte {
	keys := [][]byte{{}}
	for i := 0; i < n && len(entries) > 0; i++ {
		e := entries[r.Intn(len(entries))]
		q := bytes.Clone(e.key)
		switch r.Intn(4) {
		case 1:
			q = append(q, byte(r.Intn(256)))
		case 2:
			if len(q) > 0 {
				q[r.Intn(len(q))] ^= byte(1 + r.Intn(255))
			}
		case 3:
			q = q[:0]
			for range 1 + r.Intn(8) {
				o := entries[r.Intn(len(entries))].key
				if len(o) > 0 {
					q = append(q, o[r.Intn(len(o))])
				}
			}
		}
		keys = append(keys, q)
	}
	return keys
}

// corruptCopy returns data with a few random bytes changed, mostly near
// the end, where the top of the trie lies (every walk reads it).
func corruptCopy(r *rand.Rand, data []byte) []byte {
	buf := bytes.Clone(data)
	for range 1 + r.Intn(4) {
		p := len(buf) - 1 - r.Intn(min(len(buf), 300))
		if r.Intn(3) == 0 {
			p = r.Intn(len(buf))
		}
		buf[p] = byte(r.Intn(256))
	}
	return buf
}

// crossCheckBoth cross-checks the trie at root over data, with and without a
// jump table, and then over corrupted copies of data.
func crossCheckBoth(t *testing.T, r *rand.Rand, data []byte, root int64, keys [][]byte, corruptions int) {
	t.Helper()
	for c := 0; c <= corruptions; c++ {
		buf := data
		if c > 0 {
			buf = corruptCopy(r, data)
		}
		tr, err := New(Source{File: buf}, root)
		if err != nil {
			continue
		}
		crossCheck(t, tr, keys)
		if tj := tr.WithJumpTable(); tj.JumpTable() {
			crossCheck(t, tj, keys)
		}
	}
}

func TestHotLoopsMatchGeneral(t *testing.T) {
	r := rand.New(rand.NewSource(21))
	corruptions := 12
	if testing.Short() {
		corruptions = 3
	}
	// What the package's Writer writes, with Cassandra's page size and
	// tiny pages (wider pointers, more node types).
	alphabets := [][]byte{{0x00, 0x01, 0xFF}, []byte("abcx"), {0x40, 0x38, 0x00, 0x61, 0x62, 0x63, 0x64, 0x65, 0x66}}
	for seed := range 6 {
		entries := randomEntries(r, 1+r.Intn(400), 1+r.Intn(7), alphabets[seed%len(alphabets)])
		for _, ps := range []int{DefaultPageSize, 64, 256} {
			var out bytes.Buffer
			w := NewWriter(&out, Options{PageSize: ps})
			for _, e := range entries {
				require.NoError(t, w.Add(e.key, e.flags, e.payload))
			}
			root, err := w.Complete()
			require.NoError(t, err)
			crossCheckBoth(t, r, out.Bytes(), root, crossKeys(r, entries, 60), corruptions)
		}
	}
	// Every node type, chosen at random wherever it can hold the node,
	// with zero padding between nodes.
	types := map[nodeType]bool{}
	for seed := range 10 {
		entries := randomEntries(r, 2+r.Intn(300), 1+r.Intn(5), alphabets[seed%len(alphabets)])
		data, root := buildTrie(t, entries, buildOpts{rnd: r, anyType: true, maxPad: 300, padChance: 0.2})
		tr := mustNew(t, data, root)
		countTypes(t, tr, types)
		crossCheckBoth(t, r, data, root, crossKeys(r, entries, 60), corruptions)
	}
	require.Len(t, types, 16, "node types covered: %v", types)
	// Hashed keys, whose tries get a jump table.
	hashed := hashedEntries(r, 3000)
	data, root := buildTrie(t, hashed, buildOpts{})
	crossCheckBoth(t, r, data, root, crossKeys(r, hashed, 300), corruptions)
}

// countTypes records the type of every node of tr in seen.
func countTypes(t *testing.T, tr *Trie, seen map[nodeType]bool) {
	var nv nodeView
	stack := []int64{tr.root}
	for len(stack) > 0 {
		pos := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		require.NoError(t, nv.load(&tr.src, pos))
		seen[nv.typ] = true
		for i := 0; i < nv.n; i++ {
			if c := nv.child(i); c >= 0 {
				stack = append(stack, c)
			}
		}
	}
}

// TestGoMinShortcut compares goMinFrom, whose shortcuts answer a leaf and
// a SPARSE_8 whose first child is a leaf without decoding them, with
// goMinLoop, the loop those shortcuts stand in for: from every position of
// a hashed-key trie (mostly SPARSE_8 nodes over leaves) and of corrupted
// copies of it, in one segment and split into a file and an early-open
// tail, the answer and the error are the same.
func TestGoMinShortcut(t *testing.T) {
	r := rand.New(rand.NewSource(23))
	hashed := hashedEntries(r, 2000)
	data, root := buildTrie(t, hashed, buildOpts{})
	shortcuts := 0
	for c := 0; c <= 8; c++ {
		buf := data
		if c > 0 {
			buf = corruptCopy(r, data)
			for range 40 { // and bytes anywhere, so that the tests on the node's fields are reached
				buf[r.Intn(len(buf))] = byte(r.Intn(256))
			}
			for p, h := range buf {
				if h>>4 == byte(payloadOnly) && r.Intn(4) == 0 {
					buf[p] = h &^ 0xF // a leaf without payload: corrupt below a node
				}
			}
		}
		cut := int64(len(buf) / 2)
		type view struct {
			src      Source
			from, to int64 // the positions to start from
		}
		views := []view{{Source{File: buf}, 0, int64(len(buf))}, {Source{File: buf[:cut], Cutoff: cut, Tail: buf[cut:]}, 0, int64(len(buf))}}
		if c == 0 {
			// Every SPARSE_8 cut short, from within its header to its last
			// pointer: the node's fixed part does not fit.
			for p := range buf {
				if buf[p] == byte(sparse8)<<4 && p+1 < len(buf) {
					for end := p + 1; end < p+2+2*int(buf[p+1]) && end <= len(buf); end++ {
						views = append(views, view{Source{File: buf[:end]}, int64(p), int64(p) + 1})
					}
				}
			}
		}
		for _, v := range views {
			src := v.src
			tr := &Trie{src: src, root: root}
			a, b := tr.Walker(), tr.Walker()
			for pos := v.from; pos < v.to; pos++ {
				got, gerr := a.goMinFrom(pos, false)
				want, werr := b.goMinLoop(pos, false)
				if got != want || !sameError(gerr, werr) {
					t.Fatalf("corruption %d, tail %v, file %d bytes, pos %d: goMinFrom %d %v, goMinLoop %d %v", c, src.Tail != nil, len(src.File), pos, got, gerr, want, werr)
				}
				if seg, ok := src.segment(pos); ok && seg[0]>>4 == byte(sparse8) && got >= 0 {
					shortcuts++
				}
			}
		}
	}
	if shortcuts < 1000 {
		t.Fatalf("only %d SPARSE_8 answers: the test does not reach the shortcut", shortcuts)
	}
}
