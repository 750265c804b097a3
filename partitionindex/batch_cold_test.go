//go:build linux

package partitionindex

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/bti-go/bti/partitioner"
)

// GetBatchCold on a mapped file dropped from the page cache: its
// read-ahead advice must leave every answer as Get gives it, mixed hits,
// misses and errors included.
func TestGetBatchColdMappedFile(t *testing.T) {
	keys, file := murmur3Index(t, 20_000, 12)
	path := filepath.Join(t.TempDir(), "Partitions.db")
	require.NoError(t, os.WriteFile(path, file, 0o644))
	f, err := os.Open(path)
	require.NoError(t, err)
	require.NoError(t, f.Sync())
	// Advice only: a kernel that keeps the pages still runs the test.
	_ = unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED)
	require.NoError(t, f.Close())
	ix, err := Open(path, OpenOptions{Partitioner: partitioner.Murmur3})
	require.NoError(t, err)
	defer ix.Close()
	rd, err := ix.OpenReader()
	require.NoError(t, err)
	defer rd.Close()
	probes := append([]partitioner.Key(nil), keys[:3000]...)
	for i := range probes {
		switch i % 5 {
		case 1:
			probes[i] = partitioner.Murmur3.Decorate([]byte{byte(i), byte(i >> 8), 0xAB})
		case 3:
			probes[i] = keys[len(keys)-1-i]
		case 4:
			if i%15 == 4 {
				probes[i] = partitioner.Random.Decorate([]byte("other"))
			}
		}
	}
	got := rd.GetBatchCold(nil, probes)
	require.Len(t, got, len(probes))
	for i := range probes {
		var want Result
		want.Pos, want.OK, want.Err = rd.Get(&probes[i])
		if !sameResult(got[i], want) {
			t.Fatalf("key %d (%x): GetBatchCold %+v, Get %+v", i, probes[i].Raw, got[i], want)
		}
	}
}
