package partitionindex_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"
	"slices"

	"github.com/bti-go/bti/partitioner"
	"github.com/bti-go/bti/partitionindex"
)

// ExampleOpen is the README's "Using the library" snippet: the README's Go
// block is this file's import block and this function's body (without the
// Output comment), and TestReadmeSnippet fails when the two differ.
func ExampleOpen() {
	dir, err := os.MkdirTemp("", "bti-example-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "nb-1-bti-Partitions.db")

	// Writing: decorate every partition key and add them sorted by
	// partitioner.Compare (Murmur3: by token, then by key bytes), without
	// duplicates; Add refuses a key out of order. A position is made
	// by RowIndexPosition (a Rows.db offset) or DataPosition (a Data.db
	// offset, for a partition without a row index).
	var keys []partitioner.Key
	for _, k := range []string{"apple", "banana", "cherry", "damson"} {
		keys = append(keys, partitioner.Murmur3.Decorate([]byte(k)))
	}
	slices.SortFunc(keys, partitioner.Compare)
	f, err := os.Create(path)
	if err != nil {
		log.Fatal(err)
	}
	b := partitionindex.NewBuilder(f, partitionindex.Options{Partitioner: partitioner.Murmur3})
	for i := range keys {
		if err := b.Add(&keys[i], partitionindex.DataPosition(int64(100*i))); err != nil {
			log.Fatal(err) // *partitionindex.KeyError: order, length, position
		}
	}
	if _, err := b.Complete(); err != nil {
		log.Fatal(err)
	}
	if err := f.Close(); err != nil {
		log.Fatal(err)
	}

	// Reading: open (mmap) once, one Reader handle per goroutine; close
	// both (the mapping is released when the last one is closed).
	ix, err := partitionindex.Open(path, partitionindex.OpenOptions{Partitioner: partitioner.Murmur3})
	if err != nil {
		log.Fatal(err)
	}
	defer ix.Close()
	r, err := ix.OpenReader()
	if err != nil {
		log.Fatal(err)
	}
	defer r.Close()
	for _, k := range []string{"cherry", "fig"} {
		key := partitioner.Murmur3.Decorate([]byte(k))
		pos, ok, err := r.Get(&key) // keys by pointer: 8 bytes copied, not 80
		if err != nil {
			log.Fatal(err)
		}
		if !ok {
			fmt.Printf("%s: not in the index\n", k)
			continue
		}
		// A hit is a candidate: only a prefix of each key is in the index,
		// so confirm the key stored at the position in Rows.db/Data.db.
		if partitionindex.IsDataPosition(pos) {
			fmt.Printf("%s: candidate at Data.db offset %d\n", k, partitionindex.PositionOffset(pos))
		} else {
			fmt.Printf("%s: candidate at Rows.db offset %d\n", k, partitionindex.PositionOffset(pos))
		}
	}
	// Output:
	// cherry: candidate at Data.db offset 300
	// fig: not in the index
}
