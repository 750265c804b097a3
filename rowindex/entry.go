package rowindex

import (
	"encoding/binary"
	"math"
	"strconv"

	"github.com/bti-go/bti/internal/rowfile"
)

// Entry is what BtiTableWriter appends to Rows.db after a partition's row
// index trie: the partition key, then Cassandra's TrieIndexEntry. The
// partition index (Partitions.db) stores Position for the key.
type Entry struct {
	Position     int64  // where the key starts: the Partitions.db value
	Key          []byte // the partition key (aliases the file when read)
	DataPosition int64  // the partition's start in Data.db
	Root         int64  // the row index trie's root
	Blocks       int    // index blocks (the trie holds one more entry, the end)
	Deletion     DeletionTime
	End          int64 // the position after the entry
}

// ReadEntry decodes the entry at pos of a Rows.db file's bytes. Key aliases
// data.
func ReadEntry(data []byte, pos int64) (Entry, error) {
	bad := func(at int64, reason string) (Entry, error) {
		return Entry{}, &CorruptError{Offset: at, Reason: "partition entry at " + strconv.FormatInt(pos, 10) + ": " + reason}
	}
	if pos < 0 || pos > int64(len(data))-2 {
		return bad(pos, "position outside the file ("+strconv.Itoa(len(data))+" bytes)")
	}
	e := Entry{Position: pos}
	klen := int64(binary.BigEndian.Uint16(data[pos:]))
	p := pos + 2
	if klen > int64(len(data))-p {
		return bad(p, "key of "+strconv.FormatInt(klen, 10)+" bytes runs past the end")
	}
	e.Key = data[p : p+klen]
	p += klen
	base := p
	dp, n := rowfile.ReadUvarint(data[p:])
	if n == 0 || dp > math.MaxInt64 {
		return bad(p, "bad data position")
	}
	e.DataPosition = int64(dp)
	p += int64(n)
	rd, n := rowfile.ReadVarint(data[p:])
	if n == 0 {
		return bad(p, "bad root distance")
	}
	e.Root = base + rd
	if e.Root < 0 || e.Root >= pos {
		return bad(p, "root "+strconv.FormatInt(e.Root, 10)+" is not before the entry")
	}
	p += int64(n)
	bc, n := rowfile.ReadUvarint(data[p:])
	if n == 0 || bc > math.MaxInt32 {
		return bad(p, "bad block count")
	}
	e.Blocks = int(bc)
	p += int64(n)
	d, n, reason := rowfile.DecodeDeletion(data[p:])
	if n == 0 {
		return bad(p, reason)
	}
	e.Deletion = DeletionTime(d)
	e.End = p + int64(n)
	return e, nil
}
