package main

import (
	"errors"
	"fmt"
	"math"

	"github.com/bti-go/bti/internal/keystsv"
	"github.com/bti-go/bti/partitioner"
)

// keySet is a keys.tsv file read into memory and decorated: keys[i] is on
// line i+1 with position pos[i].
type keySet struct {
	name string // the file name as given, for messages
	keys []partitioner.Key
	pos  []int64
	raw  int64 // total raw key bytes
}

// loadKeys reads a keys.tsv (or .bz2) file into memory, decorating every
// key with p and checking what the builder would refuse, naming the line
// (keyStream's checks). It holds every key, about 120 bytes each: only the
// commands that need the whole set at once use it.
func loadKeys(path string, p partitioner.Partitioner, prog *progress) (*keySet, error) {
	s, err := openKeyStream(path, p, "reading", prog)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	ks := &keySet{name: path}
	var arena []byte
	for s.Next() {
		k := *s.Key()
		// Keep the raw bytes in large shared chunks: a million keys must not
		// cost a million allocations.
		if cap(arena)-len(arena) < len(k.Raw) {
			arena = make([]byte, 0, max(1<<20, len(k.Raw)))
		}
		start := len(arena)
		arena = append(arena, k.Raw...)
		k.Raw = arena[start:len(arena):len(arena)]
		ks.keys = append(ks.keys, k)
		ks.pos = append(ks.pos, s.Pos())
		ks.raw += int64(len(k.Raw))
	}
	if err := s.Err(); err != nil {
		return nil, err
	}
	return ks, nil
}

// checkLine refuses what the builder cannot store, naming the line: a key
// too long, or Cassandra's "not found" marker as a position.
func checkLine(path string, line int, raw []byte, pos int64) error {
	if len(raw) > partitioner.MaxKeyLength {
		return fmt.Errorf("%s line %d: key of %d bytes, at most %d fit", path, line, len(raw), partitioner.MaxKeyLength)
	}
	if pos == math.MinInt64 {
		return fmt.Errorf("%s line %d: position %d is Cassandra's \"not found\" marker and cannot be stored", path, line, pos)
	}
	return nil
}

// checkOrder refuses a key k on line that does not sort strictly after
// prev (the key on the line before), naming both.
func checkOrder(path string, line int, prev, k partitioner.Key) error {
	switch c := partitioner.Compare(prev, k); {
	case c == 0:
		return fmt.Errorf("%s line %d: key %s duplicates the previous key (line %d)", path, line, shortHex(k.Raw), line-1)
	case c > 0:
		return fmt.Errorf("%s line %d: key %s does not sort after previous key %s in %v order", path, line, shortHex(k.Raw), shortHex(prev.Raw), k.Partitioner)
	}
	return nil
}

// readError names the line of a malformed keys.tsv line, or the file of
// any other read error.
func readError(path string, err error) error {
	var le *keystsv.LineError
	if errors.As(err, &le) {
		return fmt.Errorf("%s line %d: %s", path, le.Line, le.Reason)
	}
	return fmt.Errorf("%s: %w", path, err)
}

// lineOf is the 1-based keys.tsv line of key i.
func lineOf(i int) int { return i + 1 }
