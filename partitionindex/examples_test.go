package partitionindex_test

import (
	"bytes"
	"fmt"
	"math"
	"slices"

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

// toySSTable is the sstable the examples below read: Data.db holds each
// partition as a length byte and the key (no rows), Partitions.db its index,
// every partition indexed by its Data.db offset.
type toySSTable struct {
	data  []byte
	index *partitionindex.Index
}

func newToySSTable(p partitioner.Partitioner, names ...string) *toySSTable {
	var keys []partitioner.Key
	for _, n := range names {
		keys = append(keys, p.Decorate([]byte(n)))
	}
	slices.SortFunc(keys, partitioner.Compare)
	s := &toySSTable{}
	var index bytes.Buffer
	b := partitionindex.NewBuilder(&index, partitionindex.Options{Partitioner: p})
	for _, k := range keys {
		pos := partitionindex.DataPosition(int64(len(s.data)))
		s.data = append(append(s.data, byte(len(k.Raw))), k.Raw...)
		if err := b.Add(&k, pos); err != nil {
			panic(err)
		}
	}
	if _, err := b.Complete(); err != nil {
		panic(err)
	}
	s.index = openIndex(index.Bytes(), p)
	return s
}

// openIndex opens the index bytes of a toy sstable.
func openIndex(index []byte, p partitioner.Partitioner) *partitionindex.Index {
	ix, err := partitionindex.NewIndex(index, partitionindex.OpenOptions{Partitioner: p})
	if err != nil {
		panic(err)
	}
	return ix
}

// keyAt reads the partition key stored at an index position: the KeyAt
// that Ceiling and Floor confirm candidates with.
func (s *toySSTable) keyAt(pos int64) ([]byte, error) {
	if !partitionindex.IsDataPosition(pos) {
		return nil, fmt.Errorf("position %d: this sstable has no Rows.db", pos)
	}
	off := partitionindex.PositionOffset(pos)
	if off >= int64(len(s.data)) {
		return nil, fmt.Errorf("position %d is past Data.db's end", pos)
	}
	n := int64(s.data[off])
	return s.data[off+1 : off+1+n], nil
}

func (s *toySSTable) reader() *partitionindex.Reader {
	r, err := s.index.OpenReader()
	if err != nil {
		panic(err)
	}
	return r
}

func (s *toySSTable) close(r *partitionindex.Reader) {
	if err := r.Close(); err != nil {
		panic(err)
	}
	if err := s.index.Close(); err != nil {
		panic(err)
	}
}

// A compaction writes one sstable after another: one Builder serves them
// all, Reset pointing it at the next file and keeping its memory.
func ExampleBuilder_Reset() {
	opts := partitionindex.Options{Partitioner: partitioner.ByteOrdered}
	b := partitionindex.NewBuilder(nil, opts) // Reset below gives it each file
	for i, sstable := range [][]string{{"apple", "banana"}, {"cherry", "damson", "fig"}} {
		var index bytes.Buffer
		b.Reset(&index, opts)
		for j, name := range sstable {
			dk := partitioner.ByteOrdered.Decorate([]byte(name))
			err := b.Add(&dk, partitionindex.RowIndexPosition(int64(64*j)))
			if err != nil {
				panic(err)
			}
		}
		m, err := b.Complete()
		if err != nil {
			panic(err)
		}
		fmt.Printf("sstable %d: %d keys, %d bytes, root at %d\n", i+1, m.Keys, m.Size, m.Root)
	}
	// Output:
	// sstable 1: 2 keys, 53 bytes, root at 12
	// sstable 2: 3 keys, 57 bytes, root at 18
}

// Ceiling finds the first partition at or after a key. The index holds only
// a prefix of each key, so the entry on the key's own path may stand for a
// smaller key: Ceiling asks KeyAt for the key stored there and skips it if
// so. "blueberry" meets banana's entry (both start with "b"), which KeyAt
// shows to be smaller, so the answer is cherry.
func ExampleReader_Ceiling() {
	s := newToySSTable(partitioner.ByteOrdered, "apple", "banana", "cherry", "damson")
	r := s.reader()
	defer s.close(r)
	for _, k := range []string{"banana", "blueberry", "zucchini"} {
		dk := partitioner.ByteOrdered.Decorate([]byte(k))
		pos, ok, err := r.Ceiling(&dk, s.keyAt)
		if err != nil {
			panic(err)
		}
		if !ok {
			fmt.Printf("ceiling(%s): none\n", k)
			continue
		}
		key, err := s.keyAt(pos)
		if err != nil {
			panic(err)
		}
		fmt.Printf("ceiling(%s) = %s\n", k, key)
	}
	// Output:
	// ceiling(banana) = banana
	// ceiling(blueberry) = cherry
	// ceiling(zucchini): none
}

// Floor finds the last partition at or before a key, confirming the entry on
// the key's path with KeyAt as Ceiling does: "cabbage" meets cherry's entry,
// which is greater, so the answer is banana.
func ExampleReader_Floor() {
	s := newToySSTable(partitioner.ByteOrdered, "apple", "banana", "cherry", "damson")
	r := s.reader()
	defer s.close(r)
	for _, k := range []string{"cabbage", "cherry", "aardvark"} {
		dk := partitioner.ByteOrdered.Decorate([]byte(k))
		pos, ok, err := r.Floor(&dk, s.keyAt)
		if err != nil {
			panic(err)
		}
		if !ok {
			fmt.Printf("floor(%s): none\n", k)
			continue
		}
		key, err := s.keyAt(pos)
		if err != nil {
			panic(err)
		}
		fmt.Printf("floor(%s) = %s\n", k, key)
	}
	// Output:
	// floor(cabbage) = banana
	// floor(cherry) = cherry
	// floor(aardvark): none
}

// Scan visits the partitions between two keys in order. Entries are
// prefixes, so the first and last positions may stand for keys just outside
// the bounds (here damson, whose entry "d" reaches the end bound "d"): the
// caller checks the real keys at both ends.
func ExampleReader_Scan() {
	s := newToySSTable(partitioner.ByteOrdered, "apple", "banana", "cherry", "damson", "fig")
	r := s.reader()
	defer s.close(r)
	start := partitioner.ByteOrdered.Decorate([]byte("b"))
	end := partitioner.ByteOrdered.Decorate([]byte("d"))
	it := r.Scan(&start, &end)
	for it.Next() {
		key, err := s.keyAt(it.Pos())
		if err != nil {
			panic(err)
		}
		inRange := bytes.Compare(key, start.Raw) >= 0 && bytes.Compare(key, end.Raw) <= 0
		fmt.Printf("%s in [b, d]: %v\n", key, inRange)
	}
	if err := it.Err(); err != nil {
		panic(err)
	}
	// Output:
	// banana in [b, d]: true
	// cherry in [b, d]: true
	// damson in [b, d]: false
}

// ScanReverse visits partitions in descending order; nil bounds leave that
// end open.
func ExampleReader_ScanReverse() {
	s := newToySSTable(partitioner.ByteOrdered, "apple", "banana", "cherry", "damson", "fig")
	r := s.reader()
	defer s.close(r)
	end := partitioner.ByteOrdered.Decorate([]byte("cherry"))
	it := r.ScanReverse(nil, &end)
	for it.Next() {
		key, err := s.keyAt(it.Pos())
		if err != nil {
			panic(err)
		}
		fmt.Println(string(key))
	}
	if err := it.Err(); err != nil {
		panic(err)
	}
	// Output:
	// cherry
	// banana
	// apple
}

// A token-range read starts from token values, not keys: the bounds of a
// token sort before (min) or after (max) every key of that token, and
// ScanEncoded runs between them. Cassandra's range (a, b] runs from the max
// bound of a to the max bound of b; here, the upper half of the Murmur3 ring,
// (-1, MaxInt64].
func ExampleReader_ScanEncoded_tokenRange() {
	s := newToySSTable(partitioner.Murmur3, "apple", "banana", "cherry", "damson", "fig")
	r := s.reader()
	defer s.close(r)
	from := partitioner.AppendMurmur3Bound(nil, -1, true)
	to := partitioner.AppendMurmur3Bound(nil, math.MaxInt64, true)
	it := r.ScanEncoded(from, to)
	for it.Next() {
		key, err := s.keyAt(it.Pos())
		if err != nil {
			panic(err)
		}
		fmt.Printf("%-6s token %d\n", key, partitioner.Murmur3.Decorate(key).Token)
	}
	if err := it.Err(); err != nil {
		panic(err)
	}
	// Output:
	// damson token 289376223196454987
	// banana token 3791210906525771655
	// cherry token 9024379093513952637
}

// A writer often holds its partition keys already, in its own memory and in
// partitioner order (a compaction merges sorted sstables). Decorate computes
// the token and hash byte without copying the key; Add copies what it
// keeps, so the caller's buffer may be reused as soon as Add returns.
func ExampleBuilder_Add() {
	held := [][]byte{[]byte("user:17"), []byte("user:3"), []byte("user:42")}
	// Murmur3 orders keys by token: sort once, as the sstables being merged
	// already are.
	slices.SortFunc(held, func(a, b []byte) int {
		return partitioner.Compare(partitioner.Murmur3.Decorate(a), partitioner.Murmur3.Decorate(b))
	})

	var index bytes.Buffer
	b := partitionindex.NewBuilder(&index, partitionindex.Options{Partitioner: partitioner.Murmur3})
	buf := make([]byte, 0, 64) // one buffer for every key, as a reader of Data.db would
	for i, raw := range held {
		buf = append(buf[:0], raw...)
		dk := partitioner.Murmur3.Decorate(buf)
		if err := b.Add(&dk, partitionindex.RowIndexPosition(int64(100*i))); err != nil {
			panic(err)
		}
	}
	if _, err := b.Complete(); err != nil {
		panic(err)
	}

	// Every key reads back, though buf held each only until the next Add.
	// (The positions are Rows.db offsets: this sstable's Data.db is not
	// needed to print them.)
	s := &toySSTable{index: openIndex(index.Bytes(), partitioner.Murmur3)}
	r := s.reader()
	defer s.close(r)
	for _, raw := range held {
		dk := partitioner.Murmur3.Decorate(raw)
		pos, ok, err := r.Get(&dk)
		if err != nil {
			panic(err)
		}
		fmt.Printf("%s: %v at Rows.db offset %d\n", raw, ok, partitionindex.PositionOffset(pos))
	}
	// Output:
	// user:42: true at Rows.db offset 0
	// user:3: true at Rows.db offset 100
	// user:17: true at Rows.db offset 200
}
