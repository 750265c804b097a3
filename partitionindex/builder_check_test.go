package partitionindex

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/bti-go/bti/internal/keyset"
	"github.com/bti-go/bti/partitioner"
)

// TestCheckMatchesAdd: Check refuses exactly what Add refuses, with the
// same error, and changes nothing (tableindex relies on it to refuse a
// partition before its row index is written).
func TestCheckMatchesAdd(t *testing.T) {
	for _, p := range []partitioner.Partitioner{partitioner.Murmur3, partitioner.ByteOrdered} {
		t.Run(p.String(), func(t *testing.T) {
			keys := sortedKeys(p, []byte("a"), []byte("bb"), []byte("ccc"), []byte("dddd"))
			var buf bytes.Buffer
			b := NewBuilder(&buf, Options{Partitioner: p})
			require.NoError(t, b.Check(&keys[0]), "any key fits an empty builder")
			require.NoError(t, b.Add(&keys[1], 1))
			require.NoError(t, b.Add(&keys[2], 2))
			other := partitioner.Murmur3
			if p == partitioner.Murmur3 {
				other = partitioner.ByteOrdered
			}
			refused := []partitioner.Key{
				keys[0],                       // smaller
				keys[1],                       // smaller than the pending key, equal to the trie's
				keys[2],                       // duplicate of the pending key
				other.Decorate([]byte("zzz")), // another partitioner
				p.Decorate(make([]byte, partitioner.MaxKeyLength+1)),
			}
			for i := range refused {
				checkErr := b.Check(&refused[i])
				require.Error(t, checkErr, "key %d", i)
				addErr := b.Add(&refused[i], 3)
				var ke *KeyError
				require.ErrorAs(t, addErr, &ke)
				ke.Pos = 0 // Check takes no position
				require.Equal(t, addErr, checkErr, "key %d", i)
			}
			require.NoError(t, b.Check(&keys[3]))
			require.NoError(t, b.Add(&keys[3], 3))
			_, err := b.Complete()
			require.NoError(t, err)
			require.ErrorIs(t, b.Check(&keys[3]), ErrFinished)

			var want bytes.Buffer
			wb := NewBuilder(&want, Options{Partitioner: p})
			for i, k := range keys[1:] {
				require.NoError(t, wb.Add(&k, int64(i+1)))
			}
			_, err = wb.Complete()
			require.NoError(t, err)
			require.Equal(t, want.Bytes(), buf.Bytes(), "checks left no trace")
		})
	}
}

// sortedKeys decorates raws with p and sorts them in p's order.
func sortedKeys(p partitioner.Partitioner, raws ...[]byte) []partitioner.Key {
	keys := make([]partitioner.Key, len(raws))
	for i, r := range raws {
		keys[i] = p.Decorate(r)
	}
	for i := 1; i < len(keys); i++ {
		for j := i; j > 0 && partitioner.Compare(keys[j-1], keys[j]) > 0; j-- {
			keys[j-1], keys[j] = keys[j], keys[j-1]
		}
	}
	return keys
}

// addRaw decorates raw with b's partitioner and adds it: most tests hold
// their keys as raw bytes.
func addRaw(b indexBuilder, raw []byte, position int64) error {
	k := b.keyPartitioner().Decorate(raw)
	return b.Add(&k, position)
}

// TestCompleteMetadata: what Complete reports is what the file says. The
// footer is decoded here by hand (not through NewIndex), the size is the
// sink's byte count and the page count is recomputed from it.
func TestCompleteMetadata(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 6))
	var many [][]byte
	for range 3000 {
		many = append(many, randomBytes(r, 1, 24, nil))
	}
	cases := []struct {
		name     string
		part     partitioner.Partitioner
		raws     [][]byte
		pageSize int
	}{
		{"empty", partitioner.Murmur3, nil, 0},
		{"one", partitioner.Murmur3, [][]byte{[]byte("only")}, 0},
		{"murmur3-3000", partitioner.Murmur3, many, 0},
		{"byteordered-3000-page64", partitioner.ByteOrdered, many, 64},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var buf bytes.Buffer
			buf.WriteString("earlier bytes") // the builder's file starts where the sink is
			start := buf.Len()
			b := NewBuilder(&buf, Options{Partitioner: c.part, PageSize: c.pageSize})
			keys := keyset.Decorate(c.part, c.raws)
			for i, k := range keys {
				require.NoError(t, b.Add(&k, DataPosition(int64(i))))
			}
			m, err := b.Complete()
			require.NoError(t, err)
			file := buf.Bytes()[start:]

			footer := file[len(file)-footerLength:]
			wantPage := int64(c.pageSize)
			if wantPage == 0 {
				wantPage = 4096
			}
			require.Equal(t, Metadata{
				Keys:        int64(len(keys)),
				Size:        int64(len(file)),
				Root:        int64(binary.BigEndian.Uint64(footer[16:])),
				FirstKeyPos: int64(binary.BigEndian.Uint64(footer[0:])),
				PageSize:    wantPage,
				Pages:       (int64(len(file)) + wantPage - 1) / wantPage,
			}, m)
			require.Equal(t, int64(len(keys)), int64(binary.BigEndian.Uint64(footer[8:])))

			again, err := b.Complete()
			require.NoError(t, err)
			require.Equal(t, m, again, "a second Complete reports the same")
		})
	}
}
