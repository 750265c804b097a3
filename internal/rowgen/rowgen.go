// Package rowgen makes deterministic row-index workloads for tests and
// benchmarks (the rowindex package's own and bti rows bench).
package rowgen

import (
	"bytes"
	"encoding/binary"

	"github.com/bti-go/bti/bytecomparable"
	"github.com/bti-go/bti/rowindex"
)

// Wide returns the clustering columns (bigint, text) and n index blocks of
// one wide partition: block i holds the rows i*1000 .. i*1000+999, each
// with a 72-byte text under a shared prefix, 16,400 bytes apart, every 7th
// block with a range tombstone open before it.
func Wide(n int) ([]bytecomparable.Column, []rowindex.Block) {
	cols := []bytecomparable.Column{{Type: bytecomparable.BigInt}, {Type: bytecomparable.Text}}
	blocks := make([]rowindex.Block, n)
	text := bytes.Repeat([]byte("customer/"), 8)
	for i := range blocks {
		first := binary.BigEndian.AppendUint64(nil, uint64(i)*1000)
		last := binary.BigEndian.AppendUint64(nil, uint64(i)*1000+999)
		blocks[i] = rowindex.Block{
			First:  [][]byte{first, append(text[:len(text):len(text)], byte('a'+i%26))},
			Last:   [][]byte{last, append(text[:len(text):len(text)], byte('z'-i%26))},
			Offset: int64(i) * BlockSize,
		}
		if i%7 == 0 {
			blocks[i].OpenDeletion = rowindex.Deletion(int64(i), uint32(i))
		}
	}
	return cols, blocks
}

// LookupOrder is a fixed pseudo-random order of 4096 block indexes below
// n, so that lookups do not walk the trie in file order.
func LookupOrder(n int) []int {
	order := make([]int, 4096)
	x := uint32(1)
	for i := range order {
		x = x*1664525 + 1013904223
		order[i] = int(x>>8) % n
	}
	return order
}
