// Command consumer uses bti the way a project that ran
// "go get github.com/bti-go/bti" would: through the public packages only,
// from a module of its own. It writes a Partitions.db for a few thousand
// Murmur3 partitions, opens it, and checks every lookup, a scan and the
// ordered lookups against what it wrote; then (table.go) it writes both
// index files of a table through tableindex and checks that every
// partition and every row's block is found, and (audit.go) audits both
// files as a tool would. CI runs it (.ci/run), so a change
// that breaks the public API or the module's requirements for a consumer
// fails there.
package main

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/bti-go/bti/partitioner"
	"github.com/bti-go/bti/partitionindex"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "consumer:", err)
		os.Exit(1)
	}
}

// partition is what a storage engine knows when it writes the index: the
// raw key and where the partition starts in Data.db.
type partition struct {
	key      []byte
	dataPos  int64
	position int64 // what the index stores: DataPosition(dataPos), as there is no row index entry
}

func run() error {
	dir, err := os.MkdirTemp("", "bti-consumer-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "nb-1-bti-Partitions.db")

	parts := partitions(5000)
	if err := write(path, parts); err != nil {
		return err
	}
	if err := check(path, parts); err != nil {
		return err
	}
	return runTable(dir)
}

// partitions makes n CQL int keys, sorted in Murmur3 order (by token), with
// made-up Data.db positions.
func partitions(n int) []partition {
	keys := make([]partitioner.Key, n)
	for i := range keys {
		keys[i] = partitioner.Murmur3.Decorate(binary.BigEndian.AppendUint32(nil, uint32(i)))
	}
	slices.SortFunc(keys, partitioner.Compare)
	parts := make([]partition, n)
	for i, k := range keys {
		dataPos := int64(i) * 120
		parts[i] = partition{key: k.Raw, dataPos: dataPos, position: partitionindex.DataPosition(dataPos)}
	}
	return parts
}

func write(path string, parts []partition) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	b := partitionindex.NewBuilder(f, partitionindex.Options{Partitioner: partitioner.Murmur3})
	for _, p := range parts {
		key := partitioner.Murmur3.Decorate(p.key)
		if err := b.Add(&key, p.position); err != nil {
			f.Close()
			return err
		}
	}
	if _, err := b.Complete(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func check(path string, parts []partition) error {
	ix, err := partitionindex.Open(path, partitionindex.OpenOptions{Partitioner: partitioner.Murmur3})
	if err != nil {
		return err
	}
	defer ix.Close()
	if ix.Count() != int64(len(parts)) {
		return fmt.Errorf("index holds %d keys, wrote %d", ix.Count(), len(parts))
	}
	r, err := ix.OpenReader()
	if err != nil {
		return err
	}
	defer r.Close()

	// Every key finds its partition. A hit is a candidate: a real engine
	// now reads the key at that Data.db position and compares it.
	for i, p := range parts {
		key := partitioner.Murmur3.Decorate(p.key)
		pos, ok, err := r.Get(&key)
		if err != nil {
			return err
		}
		if !ok || !partitionindex.IsDataPosition(pos) || partitionindex.PositionOffset(pos) != p.dataPos {
			return fmt.Errorf("key %d (%x): got position %d, ok %v; want Data.db %d", i, p.key, pos, ok, p.dataPos)
		}
	}

	// A scan returns every partition in order.
	n := 0
	it := r.Scan(nil, nil)
	for ; it.Next(); n++ {
		if n >= len(parts) || it.Pos() != parts[n].position {
			return fmt.Errorf("scan entry %d: position %d, want %d", n, it.Pos(), parts[n].position)
		}
	}
	if err := it.Err(); err != nil {
		return err
	}
	if n != len(parts) {
		return fmt.Errorf("scan returned %d partitions, want %d", n, len(parts))
	}

	// Ceiling of a key that is not in the index: the smallest partition
	// after it. keyAt is how the engine confirms a candidate: it returns
	// the key stored at a position (here from memory instead of Data.db).
	byPos := map[int64][]byte{}
	for _, p := range parts {
		byPos[p.position] = p.key
	}
	keyAt := func(position int64) ([]byte, error) {
		k, ok := byPos[position]
		if !ok {
			return nil, errors.New("no partition at that position")
		}
		return k, nil
	}
	absent := partitioner.Murmur3.Decorate([]byte("not a key in the index"))
	want := slices.IndexFunc(parts, func(p partition) bool {
		return partitioner.Compare(partitioner.Murmur3.Decorate(p.key), absent) > 0
	})
	pos, ok, err := r.Ceiling(&absent, keyAt)
	if err != nil {
		return err
	}
	if want >= 0 && (!ok || !bytes.Equal(byPos[pos], parts[want].key)) {
		return fmt.Errorf("ceiling: got %x (ok %v), want %x", byPos[pos], ok, parts[want].key)
	}

	fmt.Printf("consumer: wrote and read back %d partitions (%d bytes) through the public API\n", len(parts), fileSize(path))
	return nil
}

func fileSize(path string) int64 {
	st, err := os.Stat(path)
	if err != nil {
		return -1
	}
	return st.Size()
}
