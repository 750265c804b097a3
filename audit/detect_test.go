package audit

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/bti-go/bti/internal/goldenindex"
	"github.com/bti-go/bti/internal/keyset"
	"github.com/bti-go/bti/partitioner"
	"github.com/bti-go/bti/partitionindex"
)

// buildRandomIndex writes the first n keys of a random set of p.
func buildRandomIndex(t *testing.T, p partitioner.Partitioner, n int, seed uint64) []byte {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, seed))
	var raws [][]byte
	for range n {
		raws = append(raws, keyset.RandomBytes(r, 1, 12, nil))
	}
	file, _ := buildModel(t, p, raws, r, 0)
	return file
}

// TestPartitionerMismatch: opening an index with another partitioner than
// the one it was written with is a *partitionindex.PartitionerMismatchError
// naming the partitioner tried, and DetectPartitioner and OpenDetected find
// the right one.
func TestPartitionerMismatch(t *testing.T) {
	for _, written := range partitioners {
		for _, n := range []int{3, 10, 1000} {
			t.Run(fmt.Sprintf("%v/n=%d", written, n), func(t *testing.T) {
				file := buildRandomIndex(t, written, n, uint64(n)+uint64(written)<<8)
				for _, tried := range partitioners {
					ix, err := partitionindex.NewIndex(file, partitionindex.OpenOptions{Partitioner: tried})
					if tried == written {
						require.NoError(t, err)
						continue
					}
					require.ErrorIs(t, err, partitionindex.ErrPartitionerMismatch, "opened with %v", tried)
					var me *partitionindex.PartitionerMismatchError
					require.ErrorAs(t, err, &me)
					require.Equal(t, tried, me.Partitioner)
					require.Contains(t, err.Error(), tried.String())
					require.Nil(t, ix)
				}
				p, err := DetectPartitioner(file)
				require.NoError(t, err)
				require.Equal(t, written, p)
				path := filepath.Join(t.TempDir(), "Partitions.db")
				require.NoError(t, os.WriteFile(path, file, 0o644))
				ix, err := OpenDetected(path, partitionindex.OpenOptions{})
				require.NoError(t, err)
				require.Equal(t, written, ix.Partitioner())
				require.NoError(t, ix.Close())
				for _, tried := range partitioners {
					ix, err := partitionindex.Open(path, partitionindex.OpenOptions{Partitioner: tried})
					if tried == written {
						require.NoError(t, err)
						require.NoError(t, ix.Close())
					} else {
						require.ErrorIs(t, err, partitionindex.ErrPartitionerMismatch)
					}
				}
			})
		}
	}
}

// TestPartitionerAmbiguous: an empty or one-key index fits every
// partitioner (the one key is stored as the empty prefix); detection says
// so and lists them, and opening with any of them works.
func TestPartitionerAmbiguous(t *testing.T) {
	for _, n := range []int{0, 1} {
		file := buildRandomIndex(t, partitioner.Murmur3, n, 1)
		_, err := DetectPartitioner(file)
		require.ErrorIs(t, err, ErrAmbiguousPartitioner, "n=%d", n)
		var de *DetectError
		require.ErrorAs(t, err, &de)
		require.Equal(t, partitioners[:], de.Matches)
		require.Equal(t, int64(n), de.Count)
		path := filepath.Join(t.TempDir(), "Partitions.db")
		require.NoError(t, os.WriteFile(path, file, 0o644))
		_, err = OpenDetected(path, partitionindex.OpenOptions{})
		require.ErrorIs(t, err, ErrAmbiguousPartitioner)
		for _, p := range partitioners {
			_, err := partitionindex.NewIndex(file, partitionindex.OpenOptions{Partitioner: p})
			require.NoError(t, err, "n=%d %v", n, p)
		}
	}
}

// TestPartitionerNone: a file whose footer keys resolve under no
// partitioner (here the last key replaced by another of the same length).
func TestPartitionerNone(t *testing.T) {
	file := bytes.Clone(buildRandomIndex(t, partitioner.ByteOrdered, 50, 4))
	ix, err := partitionindex.NewIndex(file, partitionindex.OpenOptions{Partitioner: partitioner.ByteOrdered})
	require.NoError(t, err)
	last := ix.LastKey()
	const footerLength = 24 // firstKeyPos, key count, root
	at := len(file) - footerLength - len(last)
	require.Equal(t, last, file[at:at+len(last)])
	for i := range last {
		file[at+i] = 0 // all zeros sorts first, not last
	}
	_, err = DetectPartitioner(file)
	require.ErrorIs(t, err, ErrNoPartitioner)
	var de *DetectError
	require.ErrorAs(t, err, &de)
	require.Len(t, de.Tried, len(partitioners))
	for _, e := range de.Tried {
		require.ErrorIs(t, e, partitionindex.ErrPartitionerMismatch)
	}
}

// TestPartitionerGolden: every Cassandra-written case opens with its own
// partitioner, is refused under the others unless too small to tell, and
// is detected.
func TestPartitionerGolden(t *testing.T) {
	for _, c := range goldenindex.Cases(t) {
		_, err := partitionindex.NewIndex(c.Want, partitionindex.OpenOptions{Partitioner: c.Partitioner})
		require.NoError(t, err, c.Name)
		p, err := DetectPartitioner(c.Want)
		if len(c.Entries) <= 1 {
			require.ErrorIs(t, err, ErrAmbiguousPartitioner, c.Name)
			continue
		}
		if errors.Is(err, ErrAmbiguousPartitioner) {
			t.Logf("%s (%d keys): %v", c.Name, len(c.Entries), err)
			continue
		}
		require.NoError(t, err, c.Name)
		require.Equal(t, c.Partitioner, p, c.Name)
	}
}

// TestPartitionerDamagedHash: a footer key that walks to the right entry
// with another hash byte is damage, whatever the partitioner.
func TestPartitionerDamagedHash(t *testing.T) {
	file := oneKeyFile(t)
	damaged := bytes.Clone(file)
	damaged[1] ^= 0xFF // the leaf's hash byte
	_, err := partitionindex.NewIndex(damaged, partitionindex.OpenOptions{Partitioner: partitioner.Murmur3})
	require.ErrorIs(t, err, partitionindex.ErrCorrupt)
	_, err = DetectPartitioner(damaged)
	require.ErrorIs(t, err, partitionindex.ErrCorrupt)
}
