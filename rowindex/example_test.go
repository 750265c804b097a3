package rowindex_test

import (
	"bytes"
	"encoding/binary"
	"fmt"

	"github.com/bti-go/bti/bytecomparable"
	"github.com/bti-go/bti/rowindex"
)

// A partition of an (int, text DESC) table with three index blocks: write
// its row index, then find the block of a row and list the blocks from it.
func Example() {
	cols := []bytecomparable.Column{{Type: bytecomparable.Int}, {Type: bytecomparable.Text, Desc: true}}
	row := func(k int32, name string) [][]byte {
		return [][]byte{binary.BigEndian.AppendUint32(nil, uint32(k)), []byte(name)}
	}
	var file bytes.Buffer
	w := rowindex.NewWriter(&file, rowindex.Options{Columns: cols})
	for _, b := range []rowindex.Block{
		{First: row(1, "zed"), Last: row(4, "amy"), Offset: 20},
		{First: row(5, "kim"), Last: row(9, "bob"), Offset: 16500, OpenDeletion: rowindex.Deletion(1700000000000000, 1700000000)},
		{First: row(9, "al"), Last: row(12, "joe"), Offset: 33100},
	} {
		if err := w.Add(&b); err != nil {
			panic(err)
		}
	}
	res, err := w.FinishPartition([]byte("pk"), 4096, 49000, rowindex.Live)
	if err != nil {
		panic(err)
	}
	if err := w.Flush(); err != nil {
		panic(err)
	}
	fmt.Printf("Partitions.db value %d, root %d, %d blocks\n", res.Value, res.Root, res.Blocks)

	p, err := rowindex.OpenPartition(file.Bytes(), res.Value, cols)
	if err != nil {
		panic(err)
	}
	r := p.NewReader()
	info, _, err := r.Floor(row(7, "x"), bytecomparable.Clustering)
	fmt.Println("(7, x) is in the block at", info.Offset, "open deletion", info.OpenDeletion, err)
	key, _ := bytecomparable.AppendClustering(nil, cols, row(9, "al"), bytecomparable.Clustering)
	for r.Forward(key); r.Next(); {
		fmt.Printf("  block at %d end=%v\n", r.Info().Offset, r.Info().End)
	}
	// Output:
	// Partitions.db value 45, root 41, 3 blocks
	// (7, x) is in the block at 16500 open deletion 1700000000000000,1700000000 <nil>
	//   block at 33100 end=false
	//   block at 49000 end=true
}
