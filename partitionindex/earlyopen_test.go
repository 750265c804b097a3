package partitionindex

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/bti-go/bti/partitioner"
)

func earlyKeys(n int) []partitioner.Key {
	keys := make([]partitioner.Key, n)
	for i := range keys {
		keys[i] = partitioner.ByteOrdered.Decorate(fmt.Appendf(nil, "key%05d", i))
	}
	return keys
}

// TestBuildPartialProtocol: the protocol BuildPartialSynced wraps. A view is
// never handed out inside BuildPartial, nor while any of the three files is
// synced short of its end, whatever the order of the marks; the mark that
// completes the set hands it out, once.
func TestBuildPartialProtocol(t *testing.T) {
	const dataEnd, rowEnd = 500, 70
	orders := [][3]int{{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}}
	for _, order := range orders {
		t.Run(fmt.Sprint(order), func(t *testing.T) {
			var buf bytes.Buffer
			b := NewBuilder(&buf, Options{Partitioner: partitioner.ByteOrdered})
			for i, k := range earlyKeys(40) {
				require.NoError(t, b.Add(&k, int64(i)))
			}
			fired := 0
			accepted, err := b.BuildPartial(rowEnd, dataEnd, func(*PartialIndex) { fired++ })
			require.NoError(t, err)
			require.True(t, accepted)
			require.Zero(t, fired, "handed out inside BuildPartial")
			require.NoError(t, b.Flush())
			indexEnd := b.Position()
			marks := [3]func(int64){b.MarkDataSynced, b.MarkRowIndexSynced, b.MarkPartitionIndexSynced}
			ends := [3]int64{dataEnd, rowEnd, indexEnd}
			for _, m := range order {
				marks[m](ends[m] - 1) // one byte short: not yet
			}
			require.Zero(t, fired, "handed out before every file reached its end")
			for i, m := range order {
				marks[m](ends[m])
				if i < 2 {
					require.Zero(t, fired, "handed out after %d of 3 files", i+1)
				}
			}
			require.Equal(t, 1, fired)
			b.MarkDataSynced(dataEnd + 1)
			require.Equal(t, 1, fired, "handed out once")
		})
	}
}

// TestBuildPartialSynced: the helper gives the view the written-out sequence
// gives, at the same moments, and the files stay identical.
func TestBuildPartialSynced(t *testing.T) {
	keys := earlyKeys(3000)
	var manualBuf, helperBuf bytes.Buffer
	manual := NewBuilder(&manualBuf, Options{Partitioner: partitioner.ByteOrdered, PageSize: 256})
	helper := NewBuilder(&helperBuf, Options{Partitioner: partitioner.ByteOrdered, PageSize: 256})
	views := 0
	for i, k := range keys {
		require.NoError(t, manual.Add(&k, int64(i)))
		require.NoError(t, helper.Add(&k, int64(i)))
		if i%700 != 1 {
			continue
		}
		var want *PartialIndex
		_, err := manual.BuildPartial(int64(i), int64(2*i), func(p *PartialIndex) { want = p })
		require.NoError(t, err)
		require.NoError(t, manual.Flush())
		manual.MarkDataSynced(int64(2 * i))
		manual.MarkRowIndexSynced(int64(i))
		manual.MarkPartitionIndexSynced(manual.Position())

		got, err := helper.BuildPartialSynced(int64(i), int64(2*i))
		require.NoError(t, err)
		require.NotNil(t, want, "after key %d", i)
		require.Equal(t, want, got, "after key %d", i)
		require.Equal(t, manualBuf.Bytes(), helperBuf.Bytes(), "after key %d: bytes flushed", i)
		views++

		// Asked again with no new key in the trie: declined, no view.
		again, err := helper.BuildPartialSynced(int64(i), int64(2*i))
		require.NoError(t, err)
		require.Nil(t, again)

		// The view reads the keys that reached the trie.
		ix, err := got.NewIndex(helperBuf.Bytes())
		require.NoError(t, err)
		require.Equal(t, int64(i), ix.Count())
		require.NoError(t, ix.Close())
	}
	require.Equal(t, 5, views)
	_, err := manual.Complete()
	require.NoError(t, err)
	_, err = helper.Complete()
	require.NoError(t, err)
	require.Equal(t, manualBuf.Bytes(), helperBuf.Bytes())

	_, err = helper.BuildPartialSynced(0, 0)
	require.ErrorIs(t, err, ErrFinished)
}

// failingWriter fails its first write, then takes everything.
type failingWriter struct {
	bytes.Buffer
	failed bool
}

var errEarlySink = errors.New("sink full")

func (w *failingWriter) Write(p []byte) (int, error) {
	if !w.failed {
		w.failed = true
		return 0, errEarlySink
	}
	return w.Buffer.Write(p)
}

// TestBuildPartialSyncedFlushError: a failed flush is returned before any
// view is requested, so nothing is left waiting and the retry gets the view.
func TestBuildPartialSyncedFlushError(t *testing.T) {
	var w failingWriter
	b := NewBuilder(&w, Options{Partitioner: partitioner.ByteOrdered, PageSize: 64})
	for i, k := range earlyKeys(200) {
		require.NoError(t, b.Add(&k, int64(i)))
	}
	view, err := b.BuildPartialSynced(0, 0)
	require.ErrorIs(t, err, errEarlySink)
	require.Nil(t, view)
	view, err = b.BuildPartialSynced(0, 0)
	require.NoError(t, err)
	require.NotNil(t, view, "the failed attempt left no view waiting")
	require.Equal(t, int64(199), view.Count)
}

// TestDamagePartialView: caller-built views with impossible fields are
// refused as corrupt, not panics (the audit package tests its dumps of
// damaged input the same way).
func TestDamagePartialView(t *testing.T) {
	file := buildRaw(t, partitioner.Murmur3, [][]byte{[]byte("k")}, Options{}) // a valid one-key index
	for _, p := range []PartialIndex{
		{Cutoff: -1},
		{Cutoff: math.MinInt64},
		{Cutoff: -1, Tail: []byte{0x08, 0, 0}},
		{Root: -1, Cutoff: 3},
		{Root: math.MaxInt64, Cutoff: 3},
		{Count: -1, Cutoff: 3},
	} {
		var err error
		require.NotPanics(t, func() { _, err = p.NewIndex(file) }, "%+v", p)
		require.ErrorIs(t, err, ErrCorrupt, "%+v", p)
	}
	// An unknown partitioner is the caller's error, not the file's.
	p := PartialIndex{Partitioner: partitioner.Partitioner(200), Cutoff: 3}
	var err error
	require.NotPanics(t, func() { _, err = p.NewIndex(file) })
	require.ErrorIs(t, err, ErrPartitioner)
}
