package partitionindex

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/bti-go/bti/internal/buildpath"
	"github.com/bti-go/bti/internal/golden"
	"github.com/bti-go/bti/internal/goldenindex"
)

// buildGolden builds c on the given path, taking partial views where the
// case says Cassandra did and checking each one.
func buildGolden(t *testing.T, c goldenindex.Case, path buildpath.Path) []byte {
	var buf bytes.Buffer
	b := newPathBuilder(&buf, Options{Partitioner: c.Partitioner}, path)
	next := 0
	for i, e := range c.Entries {
		require.NoError(t, addRaw(b, e.Key, e.Pos), "key %d", i)
		if next < len(c.Partials) && c.Partials[next].AfterKeys == i+1 {
			checkPartial(t, c, b, &buf, c.Partials[next])
			next++
		}
	}
	require.Equal(t, len(c.Partials), next, "every partial request was made")
	_, err := b.Complete()
	require.NoError(t, err)
	return buf.Bytes()
}

// checkPartial takes a view where Cassandra took one, requires it to be
// Cassandra's (root, count, cutoff and the tail's length and sha256) and to
// find exactly its keys, and returns it (nil when Cassandra's builder
// refused the request too).
func checkPartial(t *testing.T, c goldenindex.Case, b indexBuilder, buf *bytes.Buffer, want golden.Partial) *PartialIndex {
	got, accepted := takeView(t, b)
	require.Equal(t, want.Accepted, accepted, "after %d keys: accepted", want.AfterKeys)
	if !accepted {
		return nil
	}
	want.RequireView(t, got.Root, got.Count, got.Cutoff, got.Tail)

	// The view finds exactly the keys that reached the trie.
	ix, err := got.NewIndex(buf.Bytes())
	require.NoError(t, err)
	r, err := ix.OpenReader()
	require.NoError(t, err)
	defer r.Close()
	inView := want.AfterKeys - 1
	for i, e := range c.Entries[:want.AfterKeys] {
		dk := c.Partitioner.Decorate(e.Key)
		pos, ok, err := r.Get(&dk)
		require.NoError(t, err)
		if i < inView {
			require.True(t, ok, "key %d in the view", i)
			require.Equal(t, e.Pos, pos, "key %d in the view", i)
		}
	}
	var n int
	for it := r.Scan(nil, nil); it.Next(); n++ {
		require.Equal(t, c.Entries[n].Pos, it.Pos(), "iteration entry %d", n)
	}
	require.Equal(t, inView, n, "view iterates its keys")
	return got
}

func TestGoldenBuild(t *testing.T) {
	for _, c := range goldenindex.Cases(t) {
		for _, path := range buildpath.All {
			t.Run(c.Name+"/"+path.String(), func(t *testing.T) {
				// Plain hex around the first difference: the annotated dump
				// is the audit package's, which this package's tests cannot
				// import; cmd/bti's TestGoldenBuild compares the same
				// builds and annotates its report.
				golden.Compare(t, c.Name, c.Want, buildGolden(t, c, path), nil)
			})
		}
	}
}

// firstDiff is golden.FirstDiff, for the tests that compare two builds.
func firstDiff(a, b []byte) int { return golden.FirstDiff(a, b) }

func TestGoldenRead(t *testing.T) {
	for _, c := range goldenindex.Cases(t) {
		t.Run(c.Name, func(t *testing.T) {
			ix, err := NewIndex(c.Want, OpenOptions{Partitioner: c.Partitioner})
			require.NoError(t, err)
			require.Equal(t, int64(len(c.Entries)), ix.Count())
			r, err := ix.OpenReader()
			require.NoError(t, err)
			defer r.Close()
			for i, e := range c.Entries {
				dk := c.Partitioner.Decorate(e.Key)
				pos, ok, err := r.Get(&dk)
				require.NoError(t, err)
				require.True(t, ok, "key %d %x", i, e.Key)
				require.Equal(t, e.Pos, pos, "key %d %x", i, e.Key)
			}
			if len(c.Entries) > 0 {
				require.Equal(t, c.Entries[0].Key, ix.FirstKey())
				require.Equal(t, c.Entries[len(c.Entries)-1].Key, ix.LastKey())
			}
			var n int
			for it := r.Scan(nil, nil); it.Next(); n++ {
				require.Equal(t, c.Entries[n].Pos, it.Pos(), "entry %d", n)
			}
			require.Equal(t, len(c.Entries), n)
		})
	}
}
