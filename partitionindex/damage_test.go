package partitionindex

import (
	"bytes"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/bti-go/bti/partitioner"
)

// Damaged input outside the lookup paths: caller-built views return
// errors, never panic (the audit package tests its dumps the same way).

// oneKeyFile is a valid one-key Murmur3 index.
func oneKeyFile(t *testing.T) []byte {
	t.Helper()
	var buf bytes.Buffer
	b := NewBuilder(&buf, Options{Partitioner: partitioner.Murmur3})
	require.NoError(t, addRaw(b, []byte("k"), 5))
	_, err := b.Complete()
	require.NoError(t, err)
	return buf.Bytes()
}

// TestDamagePartialView: caller-built views with impossible fields are
// refused as corrupt, not panics.
func TestDamagePartialView(t *testing.T) {
	file := oneKeyFile(t)
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
