package trie

import (
	"bytes"
	"errors"
	"math/rand"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bti-go/bti/internal/golden"
)

func TestGoldenRead(t *testing.T) {
	golden.ForEach(t, func(t *testing.T, c golden.Case) {
		data := c.PartitionsDB(t)
		tr, count := openIndex(t, data)

		fwd := iterAll(t, tr, nil, nil, true)
		require.Equal(t, count, int64(len(fwd)), "forward iteration count = footer count")
		for _, n := range fwd {
			f, p, err := tr.Payload(n)
			require.NoError(t, err)
			require.True(t, f >= 8 && f <= 15, "flags %d at %d", f, n)
			require.GreaterOrEqual(t, len(p), int(f)-7+1, "hash byte and position fit")
		}
		rev := iterAllReverse(t, tr, nil, nil, true)
		require.Len(t, rev, len(fwd))
		for i := range fwd {
			require.Equal(t, fwd[i], rev[len(rev)-1-i])
		}

		// Every stored prefix found by a plain DFS is what the iterator
		// listed, and the lookups agree with the model on probes around it.
		m := collect(t, tr)
		require.Equal(t, fwd, m.nodes)
		checkModel(t, tr, m, rand.New(rand.NewSource(int64(len(data)))), 300)

		// Cassandra's layout keeps the promises checkPageLayout checks of
		// ours. A partition index payload is the hash byte and flags-7
		// position bytes. (The pages each lookup reads, the node counts and
		// the dump of these files are audit's TestTrieToolsGolden.)
		if len(m.keys) > 0 {
			lay := checkPageLayout(t, tr, DefaultPageSize, func(f uint8) int { return int(f) - 6 })
			assert.Zero(t, lay.split, "branches smaller than a page that span pages")
		}
	})
}

// probeModel checks the walker's exact, ceiling and floor answers for q
// against the model's.
func probeModel(t testing.TB, w *Walker, m model, q []byte) {
	node, ok, err := w.Exact(q)
	require.NoError(t, err)
	want := m.exact(q)
	require.Equal(t, want, node, "exact % x", q)
	require.Equal(t, want >= 0, ok)
	at, gr, err := w.Ceiling(q)
	require.NoError(t, err)
	wa, wg := m.ceiling(q)
	require.Equal(t, [2]int64{wa, wg}, [2]int64{at, gr}, "ceiling % x", q)
	at, ls, err := w.Floor(q)
	require.NoError(t, err)
	wa, wl := m.floor(q)
	require.Equal(t, [2]int64{wa, wl}, [2]int64{at, ls}, "floor % x", q)
}

// checkModel compares Exact/Ceiling/Floor with the model on every stored
// prefix and on probes next to up to n of them, and a few bounded
// iterations.
func checkModel(t testing.TB, tr *Trie, m model, r *rand.Rand, n int) {
	w := tr.Walker()
	probe := func(q []byte) { probeModel(t, &w, m, q) }
	probe(nil)
	for i := 0; i < n && len(m.keys) > 0; i++ {
		k := m.keys[r.Intn(len(m.keys))]
		probe(k)
		probe(append(bytes.Clone(k), 0xFF))
		probe(append(bytes.Clone(k), 0x00, 0x01))
		if len(k) > 0 {
			probe(k[:len(k)-1])
			probe(k[:r.Intn(len(k))])
			c := bytes.Clone(k)
			c[len(c)-1]++
			probe(c)
			c = bytes.Clone(k)
			c[len(c)-1]--
			probe(c)
		}
	}
	if len(m.keys) == 0 {
		return
	}
	bound := func() []byte {
		switch r.Intn(4) {
		case 0:
			return nil
		case 1:
			return m.keys[r.Intn(len(m.keys))]
		default:
			k := bytes.Clone(m.keys[r.Intn(len(m.keys))])
			if len(k) > 0 && r.Intn(2) == 0 {
				k = k[:r.Intn(len(k))]
			}
			return append(k, byte(r.Intn(256)))
		}
	}
	for i := 0; i < 40; i++ {
		s, e := bound(), bound()
		if s != nil && e != nil && bytes.Compare(s, e) > 0 {
			s, e = e, s
		}
		admit := r.Intn(2) == 0
		require.Equal(t, m.forward(s, e, admit), iterAll(t, tr, s, e, admit), "forward % x .. % x admit=%v", s, e, admit)
		require.Equal(t, m.reverse(s, e, admit), iterAllReverse(t, tr, s, e, admit), "reverse % x .. % x admit=%v", s, e, admit)
	}
}

// TestGoldenMutations flips random bytes of the trie area and truncates it:
// the reader must return (errors are fine) without panicking or looping.
func TestGoldenMutations(t *testing.T) {
	golden.ForEach(t, func(t *testing.T, c golden.Case) {
		data := c.PartitionsDB(t)
		fkp, _, root := footer(t, data)
		clean := data[:fkp]
		m := collect(t, mustNew(t, clean, root))
		r := rand.New(rand.NewSource(int64(len(data))))
		rounds := 300
		if testing.Short() || len(clean) > 200000 {
			rounds = 60
		}
		buf := make([]byte, len(clean))
		for i := 0; i < rounds; i++ {
			copy(buf, clean)
			for j := 0; j < 1+r.Intn(4); j++ {
				// Bias towards the root's page, which every walk reads.
				p := r.Intn(len(buf))
				if r.Intn(2) == 0 && root > 0 {
					p = int(root) - r.Intn(min(int(root), 4096))
				}
				buf[p] = byte(r.Intn(256))
			}
			exercise(t, buf, root, m.keys, r)
		}
		for _, cut := range []int{0, 1, len(clean) / 2, len(clean) - 1, int(root), int(root) + 1} {
			if cut < 0 || cut > len(clean) {
				continue
			}
			exercise(t, clean[:cut], root, m.keys, r)
		}
	})
}

func mustNew(t testing.TB, data []byte, root int64) *Trie {
	tr, err := New(Source{File: data}, root)
	require.NoError(t, err)
	return tr
}

// exercise runs every reader operation over possibly corrupt bytes. Errors
// must be CorruptErrors; iterations are bounded by the byte count.
func exercise(t testing.TB, data []byte, root int64, keys [][]byte, r *rand.Rand) {
	tr, err := New(Source{File: data}, root)
	if err != nil {
		require.True(t, errors.Is(err, ErrCorrupt), "%v", err)
		return
	}
	ok := func(err error) {
		if err != nil {
			require.True(t, errors.Is(err, ErrCorrupt), "%v", err)
		}
	}
	w := tr.Walker()
	for i := 0; i < 8 && len(keys) > 0; i++ {
		k := keys[r.Intn(len(keys))]
		_, _, err := w.Exact(k)
		ok(err)
		_, _, err = w.Ceiling(k)
		ok(err)
		_, _, err = w.Floor(k)
		ok(err)
	}
	_, err = w.First()
	ok(err)
	_, err = w.Last()
	ok(err)
	limit := len(data) + 1
	var it Iterator
	n := 0
	for it.Reset(tr, nil, nil, true); it.Next(); n++ {
		if n > limit {
			t.Fatalf("forward iteration returned more than %d nodes", limit)
		}
		if _, _, err := tr.Payload(it.Node()); err != nil {
			ok(err)
		}
	}
	ok(it.Err())
	var rit ReverseIterator
	n = 0
	for rit.Reset(tr, nil, nil, true); rit.Next(); n++ {
		if n > limit {
			t.Fatalf("reverse iteration returned more than %d nodes", limit)
		}
	}
	ok(rit.Err())
	if len(keys) > 1 {
		s, e := keys[0], keys[len(keys)-1]
		for it.Reset(tr, s, e, true); it.Next(); {
		}
		ok(it.Err())
		for rit.Reset(tr, s, e, false); rit.Next(); {
		}
		ok(rit.Err())
	}
}
