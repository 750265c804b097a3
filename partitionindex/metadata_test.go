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
