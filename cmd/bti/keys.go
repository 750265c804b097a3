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

// loadKeys reads a keys.tsv (or .bz2) file, decorates every key with p and
// checks what the builder would refuse, naming the line: malformed lines,
// keys out of order or repeated, keys too long, unstorable positions.
func loadKeys(path string, p partitioner.Partitioner, prog *progress) (*keySet, error) {
	r, err := keystsv.Open(path)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	ks := &keySet{name: path}
	kr := keystsv.NewReader(r)
	var arena []byte
	for kr.Next() {
		line, raw := kr.Line(), kr.Key()
		if err := checkLine(path, line, raw, kr.Pos()); err != nil {
			return nil, err
		}
		// Keep the raw bytes in large shared chunks: a million keys must not
		// cost a million allocations.
		if cap(arena)-len(arena) < len(raw) {
			arena = make([]byte, 0, max(1<<20, len(raw)))
		}
		start := len(arena)
		arena = append(arena, raw...)
		k := p.Decorate(arena[start:len(arena):len(arena)])
		if n := len(ks.keys); n > 0 {
			if err := checkOrder(path, line, ks.keys[n-1], k); err != nil {
				return nil, err
			}
		}
		ks.keys = append(ks.keys, k)
		ks.pos = append(ks.pos, kr.Pos())
		ks.raw += int64(len(raw))
		if line&0xFFFF == 0 {
			prog.update("reading %s: %d keys", path, line)
		}
	}
	prog.done()
	if err := kr.Err(); err != nil {
		return nil, readError(path, err)
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
