package partitionindex

import (
	"bytes"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/bti-go/bti/partitioner"
)

// TestReleaseErrorOnlyFromIndexClose: a failure to release the memory
// (munmap for an Index from Open) is reported by Index.Close and never by
// Reader.Close, whether the index or the last reader closes last.
func TestReleaseErrorOnlyFromIndexClose(t *testing.T) {
	var file bytes.Buffer
	b := NewBuilder(&file, Options{Partitioner: partitioner.Murmur3})
	require.NoError(t, addRaw(b, []byte("k"), 1))
	_, err := b.Complete()
	require.NoError(t, err)
	errUnmap := errors.New("munmap failed")
	open := func() (*Index, *int) {
		ix, err := NewIndex(file.Bytes(), OpenOptions{Partitioner: partitioner.Murmur3})
		require.NoError(t, err)
		calls := new(int)
		ix.release = func() error { *calls++; return errUnmap }
		return ix, calls
	}

	t.Run("no reader open", func(t *testing.T) {
		ix, calls := open()
		require.ErrorIs(t, ix.Close(), errUnmap)
		require.Equal(t, 1, *calls)
	})
	t.Run("reader closed after the index", func(t *testing.T) {
		ix, calls := open()
		r, err := ix.OpenReader()
		require.NoError(t, err)
		require.NoError(t, ix.Close(), "the mapping stays while a reader is open")
		require.Zero(t, *calls)
		require.NoError(t, r.Close(), "Reader.Close does not report the release")
		require.Equal(t, 1, *calls, "the last reader released the memory")
		require.ErrorIs(t, ix.Close(), errUnmap, "Index.Close reports it when called again")
		require.Equal(t, 1, *calls, "released once")
	})
}
