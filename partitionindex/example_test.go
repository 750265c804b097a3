package partitionindex_test

import (
	"bytes"
	"fmt"

	"github.com/bti-go/bti/partitioner"
	"github.com/bti-go/bti/partitionindex"
)

// An SSTable writer appends each partition to its data file (and, for wide
// partitions, a row-index entry to Rows.db), then hands the partition key
// and where it went to the partition index builder. Mid-way, compaction may
// open the sstable early: a partial index becomes usable once all three
// files are flushed far enough.
func Example() {
	var dataFile, index bytes.Buffer
	b := partitionindex.NewBuilder(&index, partitionindex.Options{Partitioner: partitioner.ByteOrdered})

	for i, name := range []string{"apple", "banana", "cherry", "damson"} {
		key := partitioner.ByteOrdered.Decorate([]byte(name))
		dataPos := int64(dataFile.Len())
		dataFile.WriteString(name) // the partition's data
		// A partition without a row index is found through its Data.db offset.
		if err := b.Add(&key, partitionindex.DataPosition(dataPos)); err != nil {
			panic(err)
		}
		if i == 2 {
			// Early open after three partitions: the view holds the first
			// two (the builder keeps the latest back until the next key).
			// The data file is synced to its end and there is no row
			// index, so all three files are synced together.
			view, err := b.BuildPartialSynced(0, int64(dataFile.Len()))
			if err != nil {
				panic(err)
			}
			ix, err := view.NewIndex(index.Bytes())
			if err != nil {
				panic(err)
			}
			fmt.Println("early view keys:", ix.Count())
			if err := ix.Close(); err != nil {
				panic(err)
			}
		}
	}
	if _, err := b.Complete(); err != nil {
		panic(err)
	}

	ix, err := partitionindex.NewIndex(index.Bytes(), partitionindex.OpenOptions{Partitioner: partitioner.ByteOrdered})
	if err != nil {
		panic(err)
	}
	defer ix.Close()
	r, err := ix.OpenReader()
	if err != nil {
		panic(err)
	}
	defer r.Close()

	dk := partitioner.ByteOrdered.Decorate([]byte("cherry"))
	pos, ok, err := r.Get(&dk)
	if err != nil || !ok {
		panic("cherry not found")
	}
	// A hit is a candidate: confirm the key stored at the position.
	dataPos := partitionindex.PositionOffset(pos)
	fmt.Printf("cherry: data position %d, key there %q\n", dataPos, dataFile.Bytes()[dataPos:dataPos+6])
	fmt.Println("keys:", ix.Count(), "first:", string(ix.FirstKey()), "last:", string(ix.LastKey()))
	// Output:
	// early view keys: 2
	// cherry: data position 11, key there "cherry"
	// keys: 4 first: apple last: damson
}
