package partitionindex

import (
	"bytes"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/bti-go/bti/partitioner"
)

// TestPositionHelpers: both kinds round-trip through the constructors and
// accessors at the edges of their ranges, the two kinds never collide, and
// the encoding is the one the payload stores (a Data.db offset comes back
// from the file as the same negative number).
func TestPositionHelpers(t *testing.T) {
	for _, off := range []int64{0, 1, 255, 256, 1 << 31, 1 << 40, math.MaxInt64 - 1} {
		row, data := RowIndexPosition(off), DataPosition(off)
		require.False(t, IsDataPosition(row), "Rows.db offset %d", off)
		require.True(t, IsDataPosition(data), "Data.db offset %d", off)
		require.Equal(t, off, PositionOffset(row), "Rows.db offset %d", off)
		require.Equal(t, off, PositionOffset(data), "Data.db offset %d", off)
		require.NotEqual(t, row, data)
	}
	require.Equal(t, int64(-1), DataPosition(0), "Data.db offset 0 is Cassandra's ~0")
	require.Equal(t, int64(-301), DataPosition(300))

	// Data.db offset MaxInt64 would be Cassandra's "not found" marker: the
	// builder refuses it rather than writing a position no reader can tell
	// from a miss.
	b := NewBuilder(new(bytes.Buffer), Options{Partitioner: partitioner.ByteOrdered})
	dk := partitioner.ByteOrdered.Decorate([]byte("k"))
	err := b.Add(&dk, DataPosition(math.MaxInt64))
	require.ErrorIs(t, err, ErrPosition)
}

// TestPositionHelpersThroughFile: positions made by the constructors are
// what Get and a scan return, and the accessors decode them.
func TestPositionHelpersThroughFile(t *testing.T) {
	offs := []int64{0, 7, 1 << 20, 1 << 40}
	var buf bytes.Buffer
	b := NewBuilder(&buf, Options{Partitioner: partitioner.ByteOrdered})
	for i, off := range offs {
		pos := RowIndexPosition(off)
		if i%2 == 1 {
			pos = DataPosition(off)
		}
		dk := partitioner.ByteOrdered.Decorate([]byte{byte('a' + i)})
		require.NoError(t, b.Add(&dk, pos))
	}
	_, err := b.Complete()
	require.NoError(t, err)
	ix, err := NewIndex(buf.Bytes(), OpenOptions{Partitioner: partitioner.ByteOrdered})
	require.NoError(t, err)
	defer ix.Close()
	r, err := ix.OpenReader()
	require.NoError(t, err)
	defer r.Close()
	i := 0
	it := r.Scan(nil, nil)
	for ; it.Next(); i++ {
		require.Equal(t, i%2 == 1, IsDataPosition(it.Pos()), "entry %d", i)
		require.Equal(t, offs[i], PositionOffset(it.Pos()), "entry %d", i)
	}
	require.NoError(t, it.Err())
	require.Equal(t, len(offs), i)
}
