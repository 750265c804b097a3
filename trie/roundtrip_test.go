package trie

import (
	"bytes"
	"encoding/binary"
	"math/rand"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/bti-go/bti/internal/keyset"
)

// TestReadWriterOutput reads what the package's Writer produces, with
// Cassandra's page size and tiny pages, and checks it against the model;
// and checks the page-aware layout (checkPageLayout, payloads of two bytes
// as sortedEntries makes them): no node with its payload straddles a page,
// no branch smaller than a page spans two, and padding is zeros up to a
// page boundary.
func TestReadWriterOutput(t *testing.T) {
	alphabets := [][]byte{{0x00, 0x01, 0xFF}, []byte("abcx"), {0x40, 0x38, 0x00, 0x61, 0x62, 0x63, 0x64, 0x65, 0x66}}
	for seed := int64(1); seed <= 12; seed++ {
		r := rand.New(rand.NewSource(seed))
		entries := randomEntries(r, 1+r.Intn(400), 1+r.Intn(7), alphabets[int(seed)%len(alphabets)])
		for _, ps := range []int{DefaultPageSize, 64, 256} {
			data, root := writeEntries(t, entries, Options{PageSize: ps})
			tr, err := New(Source{File: data}, root)
			require.NoError(t, err, "seed %d page %d", seed, ps)
			m := collect(t, tr)
			require.Len(t, m.keys, len(entries), "seed %d page %d", seed, ps)
			for i, e := range entries {
				require.True(t, bytes.Equal(e.key, m.keys[i]), "seed %d page %d key %d", seed, ps, i)
				f, p, err := tr.Payload(m.nodes[i])
				require.NoError(t, err)
				require.Equal(t, e.flags, f)
				require.Equal(t, e.payload, p[:len(e.payload)])
			}
			checkModel(t, tr, m, r, 50)
			lay := checkPageLayout(t, tr, int64(ps), func(uint8) int { return 2 })
			require.Zero(t, lay.straddle, "seed %d page %d: nodes across a page boundary", seed, ps)
			require.Zero(t, lay.split, "seed %d page %d: branches smaller than a page across a page boundary", seed, ps)
		}
	}
}

// The page-aware layout's promises on the writer's own output: every branch
// smaller than a page lies in one page, and padding is zeros up to a page
// boundary and nowhere else (checkPageLayout). The same file measured
// against an eighth of its page must show split branches and nodes, so the
// branch and node checks are seen to fail on a layout that ignores the page
// they are checked against. That every page is read by some lookup, and that the distinct
// pages of each lookup match the node statistics' histogram, is audit's
// TestTriePathPagesMatchCountTrie on the same key sets.
func TestLookupPagesAreMonotone(t *testing.T) {
	for _, set := range []struct {
		name string
		keys func(r *rand.Rand) [][]byte
	}{
		{"random-16B", func(r *rand.Rand) [][]byte {
			ks := make([][]byte, 100_000)
			for i := range ks {
				ks[i] = binary.BigEndian.AppendUint64(binary.BigEndian.AppendUint64(nil, r.Uint64()), r.Uint64())
			}
			return ks
		}},
		{"shared-5000B-prefix", func(r *rand.Rand) [][]byte {
			prefix := bytes.Repeat([]byte{0x42}, 5000)
			ks := make([][]byte, 400)
			for i := range ks {
				ks[i] = binary.BigEndian.AppendUint32(slices.Clone(prefix), r.Uint32())
			}
			return ks
		}},
	} {
		t.Run(set.name, func(t *testing.T) {
			r := rand.New(rand.NewSource(5))
			keys := keyset.Bytes(set.keys(r))
			payload := []byte{1, 2, 3}
			entries := make([]entry, len(keys))
			for i, k := range keys {
				entries[i] = entry{key: k, flags: 10, payload: payload}
			}
			data, root := writeEntries(t, entries, Options{})
			tr := mustNew(t, data, root)

			payloadLen := func(uint8) int { return len(payload) }
			lay := checkPageLayout(t, tr, DefaultPageSize, payloadLen)
			t.Logf("%d branches smaller than a page, %d padding runs", lay.small, lay.padRuns)
			require.Positive(t, lay.small)
			require.Zero(t, lay.split, "branches smaller than a page that span pages")
			require.Zero(t, lay.straddle, "nodes that span pages")
			control := checkPageLayout(t, tr, DefaultPageSize/8, payloadLen)
			t.Logf("against %d-byte pages: %d of %d small branches span pages, %d nodes", DefaultPageSize/8, control.split, control.small, control.straddle)
			require.Positive(t, control.split, "the branch check should fail against pages the writer did not use")
			require.Positive(t, control.straddle, "the node check should fail against pages the writer did not use")
		})
	}
}

// pageLayout is what checkPageLayout measured.
type pageLayout struct {
	small    int // branches (a node and everything below it) of fewer bytes than a page
	split    int // of those, the ones whose bytes touch more than one page
	padRuns  int // runs of bytes that no node occupies
	straddle int // nodes whose fixed part and payload touch more than one page
}

// checkPageLayout walks every node of tr, whose payloads take
// payloadLen(flags) bytes, and checks against pages of ps bytes what the
// page-aware writer promises beyond the pointer rule:
//   - nodes do not overlap, and every byte no node occupies is a zero in a
//     run that ends on a page boundary (the writer pads only when no pending
//     branch fits what is left of the page, and only up to its end);
//   - a branch smaller than a page is written as one block into a page with
//     room for it, so it touches one page: it returns how many touch more;
//   - a node with its payload lies in one page: it returns how many do not.
func checkPageLayout(t *testing.T, tr *Trie, ps int64, payloadLen func(flags uint8) int) pageLayout {
	t.Helper()
	type frame struct {
		kids  []int64
		next  int
		bytes int64 // the node and the children climbed from so far
		first int64 // the lowest and highest page those bytes touch
		last  int64
	}
	var lay pageLayout
	file := tr.src.File
	occupied := make([]bool, len(file)) // the bytes nodes take
	var nv nodeView
	push := func(stack []frame, pos int64) []frame {
		if err := nv.load(&tr.src, pos); err != nil {
			t.Fatal(err)
		}
		end := pos + int64(nv.ppos)
		if nv.flags != 0 {
			end += int64(payloadLen(nv.flags))
		}
		if end > int64(len(file)) {
			t.Fatalf("node @%d ends at %d, past the file", pos, end)
		}
		for b := pos; b < end; b++ {
			if occupied[b] {
				t.Fatalf("node @%d overlaps another node at %d", pos, b)
			}
			occupied[b] = true
		}
		f := frame{bytes: end - pos, first: pos / ps, last: (end - 1) / ps}
		if f.first != f.last {
			lay.straddle++
		}
		for i := range nv.n {
			if c := nv.child(i); c >= 0 {
				f.kids = append(f.kids, c)
			}
		}
		return append(stack, f)
	}
	stack := push(nil, tr.root)
	for len(stack) > 0 {
		if f := &stack[len(stack)-1]; f.next < len(f.kids) {
			f.next++
			stack = push(stack, f.kids[f.next-1])
			continue
		}
		done := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if done.bytes < ps {
			lay.small++
			if done.first != done.last {
				lay.split++
			}
		}
		if len(stack) > 0 {
			p := &stack[len(stack)-1]
			p.bytes += done.bytes
			p.first, p.last = min(p.first, done.first), max(p.last, done.last)
		}
	}

	for b, inNode := range occupied {
		if inNode {
			continue
		}
		if file[b] != 0 {
			t.Fatalf("byte %d is neither in a node nor zero padding", b)
		}
		if b+1 == len(file) || occupied[b+1] {
			lay.padRuns++
			if int64(b+1)%ps != 0 {
				t.Fatalf("padding ending at %d stops short of a %d-byte page boundary", b+1, ps)
			}
		}
	}
	return lay
}

// TestReadPartialRoots reads early-open views (file part below Cutoff plus an
// in-memory tail) taken while writing: each lists, in order, the first Count
// keys, and the iterator agrees with a plain walk.
func TestReadPartialRoots(t *testing.T) {
	r := rand.New(rand.NewSource(11))
	entries := randomEntries(r, 3000, 6, []byte{0x00, 0x40, 0x61, 0x62, 0xFF})
	var out bytes.Buffer
	w := NewWriter(&out, Options{PageSize: 256})
	for i, e := range entries {
		require.NoError(t, w.Add(e.key, e.flags, e.payload))
		if i%97 != 50 {
			continue
		}
		require.NoError(t, w.Flush())
		pr, err := w.MakePartialRoot()
		require.NoError(t, err)
		file := bytes.Clone(out.Bytes())
		tr, err := New(Source{File: file, Cutoff: pr.Cutoff, Tail: pr.Tail}, pr.Root)
		require.NoError(t, err)
		m := collect(t, tr)
		require.Equal(t, pr.Count, int64(len(m.keys)), "after key %d", i)
		for j := range m.keys {
			require.True(t, bytes.Equal(entries[j].key, m.keys[j]), "after key %d: key %d", i, j)
		}
		require.Equal(t, m.nodes, iterAll(t, tr, nil, nil, true))
	}
}
