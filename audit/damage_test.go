package audit

import (
	"bytes"
	"io"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/bti-go/bti/internal/keyset"
	"github.com/bti-go/bti/partitioner"
	"github.com/bti-go/bti/partitionindex"
)

// Damaged input outside the lookup paths: the annotated dump returns an
// error, never panics.

// oneKeyFile is a valid one-key Murmur3 index.
func oneKeyFile(t *testing.T) []byte {
	t.Helper()
	var buf bytes.Buffer
	b := partitionindex.NewBuilder(&buf, partitionindex.Options{Partitioner: partitioner.Murmur3})
	require.NoError(t, addRaw(b, partitioner.Murmur3, []byte("k"), 5))
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
	_, err := partitionindex.NewIndex(damaged, partitionindex.OpenOptions{Partitioner: partitioner.Murmur3, SkipPartitionerCheck: true})
	require.NoError(t, err)
	var out bytes.Buffer
	require.NotPanics(t, func() { err = WriteAnnotated(&out, damaged) })
	require.NoError(t, err)
	require.Contains(t, out.String(), "payload: position")
}

// TestDamageAnnotatedEveryByte changes every byte of small files to every
// value: WriteAnnotated returns (an error or a dump), never panics.
func TestDamageAnnotatedEveryByte(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	for _, n := range []int{1, 2, 5, 12} {
		var raws [][]byte
		for range n {
			raws = append(raws, keyset.RandomBytesN(r, r.IntN(5), []byte{0, 1, 'a', 0xff}))
		}
		file, _ := buildModel(t, partitioner.Murmur3, raws, r, 0)
		for at := range file {
			for v := range 256 {
				damaged := bytes.Clone(file)
				damaged[at] = byte(v)
				ix, err := partitionindex.NewIndex(damaged, partitionindex.OpenOptions{Partitioner: partitioner.Murmur3, SkipPartitionerCheck: true})
				if err != nil {
					continue
				}
				var aerr error
				require.NotPanics(t, func() { aerr = WriteAnnotated(io.Discard, damaged) }, "n=%d byte %d = %02x", n, at, v)
				if aerr != nil {
					require.ErrorIs(t, aerr, partitionindex.ErrCorrupt, "n=%d byte %d = %02x", n, at, v)
				}
				require.NotPanics(t, func() { _ = DumpTrie(io.Discard, ix.Trie()) })
			}
		}
	}
}
