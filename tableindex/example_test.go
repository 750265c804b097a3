package tableindex_test

import (
	"bytes"
	"encoding/binary"
	"fmt"

	"github.com/bti-go/bti/bytecomparable"
	"github.com/bti-go/bti/partitioner"
	"github.com/bti-go/bti/partitionindex"
	"github.com/bti-go/bti/rowindex"
	"github.com/bti-go/bti/tableindex"
)

// An sstable writer's view: three partitions of a table with one int
// clustering column, written to Partitions.db and Rows.db side by side;
// then a read finds a partition through Partitions.db and, for a wide one,
// the index block of a row through Rows.db.
func Example() {
	cols := []bytecomparable.Column{{Type: bytecomparable.Int}}
	ck := func(v int32) [][]byte { return [][]byte{binary.BigEndian.AppendUint32(nil, uint32(v))} }
	type partition struct {
		key     string
		dataPos int64 // where the partition starts in Data.db
		endPos  int64 // its length, where the blocks' offsets end
		blocks  []rowindex.Block
	}
	table := []partition{ // in ByteOrdered order
		{"alice", 0, 31000, []rowindex.Block{
			{First: ck(1), Last: ck(40), Offset: 10},
			{First: ck(41), Last: ck(90), Offset: 16400},
		}},
		{"bob", 31000, 200, []rowindex.Block{{First: ck(1), Last: ck(3), Offset: 8}}},
		{"carol", 31200, 50000, []rowindex.Block{
			{First: ck(5), Last: ck(50), Offset: 12},
			{First: ck(60), Last: ck(99), Offset: 16500, OpenDeletion: rowindex.Deletion(1700000000000000, 1700000000)},
			{First: ck(100), Last: ck(180), Offset: 33000},
		}},
	}

	var partsDB, rowsDB bytes.Buffer
	w := tableindex.NewWriter(&partsDB, &rowsDB, tableindex.Options{Partitioner: partitioner.ByteOrdered, Columns: cols})
	for _, p := range table {
		if err := w.StartPartition([]byte(p.key), p.dataPos, rowindex.Live); err != nil {
			panic(err)
		}
		for _, b := range p.blocks {
			if err := w.AddBlock(b); err != nil {
				panic(err)
			}
		}
		res, err := w.FinishPartition(p.endPos)
		if err != nil {
			panic(err)
		}
		fmt.Printf("%-5s %d blocks: Partitions.db value %d\n", p.key, res.Blocks, res.Value)
	}
	if _, err := w.Complete(); err != nil {
		panic(err)
	}

	ix, err := partitionindex.NewIndex(partsDB.Bytes(), partitionindex.OpenOptions{Partitioner: partitioner.ByteOrdered})
	if err != nil {
		panic(err)
	}
	r, err := ix.OpenReader()
	if err != nil {
		panic(err)
	}
	defer r.Close()
	for _, key := range []string{"bob", "carol"} {
		// A hit is a candidate: a reader confirms it against the key stored
		// at the position (in Data.db or Rows.db, both start with it).
		dk := partitioner.ByteOrdered.Decorate([]byte(key))
		pos, ok, err := r.Get(&dk)
		if err != nil || !ok {
			panic(fmt.Sprint(key, " not found ", err))
		}
		if partitionindex.IsDataPosition(pos) {
			fmt.Printf("%s: no row index, Data.db %d\n", key, partitionindex.PositionOffset(pos))
			continue
		}
		p, err := rowindex.OpenPartition(rowsDB.Bytes(), pos, cols)
		if err != nil {
			panic(err)
		}
		info, _, err := p.NewReader().Floor(ck(75), bytecomparable.Clustering)
		if err != nil {
			panic(err)
		}
		fmt.Printf("%s: Rows.db %d, Data.db %d; row 75 is in the block at %d (open deletion %v)\n",
			key, pos, p.Entry.DataPosition, info.Offset, info.OpenDeletion)
	}
	// Output:
	// alice 2 blocks: Partitions.db value 22
	// bob   1 blocks: Partitions.db value -31001
	// carol 3 blocks: Partitions.db value 74
	// bob: no row index, Data.db 31000
	// carol: Rows.db 74, Data.db 31200; row 75 is in the block at 16500 (open deletion 1700000000000000,1700000000)
}
