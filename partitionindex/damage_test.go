package partitionindex

import (
	"bytes"
	"io"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/bti-go/bti/partitioner"
)

// Damaged input outside the lookup paths: dumps and caller-built views
// return errors, never panic.

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

// TestDamageAnnotatedLeafFlags: the one-key file's leaf header 08 becomes
// 01 (a hash-less payload of one byte). The bytes still decode; the dump
// must describe them, not panic on a negative item size.
func TestDamageAnnotatedLeafFlags(t *testing.T) {
	file := oneKeyFile(t)
	require.Equal(t, byte(0x08), file[0], "the leaf is the first node: PAYLOAD_ONLY, flags 8")
	damaged := bytes.Clone(file)
	damaged[0] = 0x01
	ix, err := NewIndex(damaged, OpenOptions{Partitioner: partitioner.Murmur3, SkipPartitionerCheck: true})
	require.NoError(t, err)
	var out bytes.Buffer
	require.NotPanics(t, func() { err = ix.WriteAnnotated(&out) })
	require.NoError(t, err)
	require.Contains(t, out.String(), "payload: position")
}

// TestDamageAnnotatedEveryByte changes every byte of small files to every
// value: WriteAnnotated returns (an error or a dump), never panics.
func TestDamageAnnotatedEveryByte(t *testing.T) {
	r := seededRand(9)
	for _, n := range []int{1, 2, 5, 12} {
		var raws [][]byte
		for range n {
			raws = append(raws, randomBytesN(r, r.IntN(5), []byte{0, 1, 'a', 0xff}))
		}
		s := newOrderedInput("damage", partitioner.Murmur3, 0, r, raws)
		file := s.cleanBuild(t, len(s.keys))
		for at := range file {
			for v := range 256 {
				damaged := bytes.Clone(file)
				damaged[at] = byte(v)
				ix, err := NewIndex(damaged, OpenOptions{Partitioner: partitioner.Murmur3, SkipPartitionerCheck: true})
				if err != nil {
					continue
				}
				var aerr error
				require.NotPanics(t, func() { aerr = ix.WriteAnnotated(io.Discard) }, "n=%d byte %d = %02x", n, at, v)
				if aerr != nil {
					require.ErrorIs(t, aerr, ErrCorrupt, "n=%d byte %d = %02x", n, at, v)
				}
				require.NotPanics(t, func() { _ = ix.Trie().Dump(io.Discard) })
			}
		}
	}
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
