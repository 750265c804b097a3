package trie

import (
	"bytes"
	"math/rand"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestReadWriterOutput reads what the package's Writer produces, with
// Cassandra's page size and tiny pages, and checks it against the model;
// and checks the page-aware property: no node with its payload straddles a
// page.
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
			checkPages(t, tr, int64(ps), 2)
		}
	}
}

// checkPages walks every node and checks that its fixed part (plus
// payloadLen bytes when it has a payload) stays inside one page.
func checkPages(t *testing.T, tr *Trie, ps int64, payloadLen int) {
	var nv nodeView
	stack := []int64{tr.root}
	for len(stack) > 0 {
		pos := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		require.NoError(t, nv.load(&tr.src, pos))
		end := pos + int64(nv.ppos)
		if nv.flags != 0 {
			end += int64(payloadLen)
		}
		if ps >= 64 && pos/ps != (end-1)/ps {
			t.Fatalf("node @%d (%s, %d bytes) straddles a %d-byte page", pos, nv.typ, end-pos, ps)
		}
		for i := 0; i < nv.n; i++ {
			if c := nv.child(i); c >= 0 {
				stack = append(stack, c)
			}
		}
	}
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
