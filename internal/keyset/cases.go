package keyset

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"

	"github.com/bti-go/bti/internal/buildpath"
	"github.com/bti-go/bti/internal/golden"
	"github.com/bti-go/bti/partitioner"
)

// ModelCase is one index the model tests of partitionindex and the checks
// of audit build: keys of one shape under one partitioner, at one page
// size (0 is Cassandra's 4096).
type ModelCase struct {
	Partitioner partitioner.Partitioner
	Shape       Shape
	Keys        int // how many raw keys Shape generates (before duplicates are dropped)
	PageSize    int
}

// Name is the case's subtest name: partitioner/shape/n=keys/page=size.
func (c ModelCase) Name() string {
	return fmt.Sprintf("%v/%s/n=%d/page=%d", c.Partitioner, c.Shape.Name, c.Keys, c.PageSize)
}

// Rand returns the case's random source, seeded from its key count and
// shape, so that both packages build the same keys for the same case.
func (c ModelCase) Rand() *rand.Rand {
	return rand.New(rand.NewPCG(uint64(c.Keys), uint64(len(c.Shape.Name))))
}

// ModelSizes are the key counts of the model cases: up to 100,000 (the size
// round trips must reach), or up to 1,000 when short (go test -short).
func ModelSizes(short bool) []int {
	if short {
		return []int{1, 2, 10, 100, 1000}
	}
	return []int{1, 2, 10, 100, 1000, 10000, 100000}
}

// ModelCases returns the model cases for the key counts sizes: every
// partitioner, every shape and page sizes 0 and 64, except that the
// 5,000-byte keys of long-shared-prefix stop at 1,000 (enough to cross
// pages) and only random Murmur3 keys go beyond 10,000 (one large set).
func ModelCases(sizes []int) []ModelCase {
	var cases []ModelCase
	for _, p := range []partitioner.Partitioner{partitioner.Murmur3, partitioner.ByteOrdered, partitioner.Random} {
		for _, shape := range Shapes {
			for _, n := range sizes {
				if shape.Name == "long-shared-prefix" && n > 1000 {
					continue
				}
				if n > 10000 && (shape.Name != "random" || p != partitioner.Murmur3) {
					continue
				}
				for _, pageSize := range []int{0, 64} {
					cases = append(cases, ModelCase{Partitioner: p, Shape: shape, Keys: n, PageSize: pageSize})
				}
			}
		}
	}
	return cases
}

// PathBuilder is what BuildOnPaths asks of a Partitions.db builder on one
// path (internal/buildpath). M is the builder's Metadata type:
// partitionindex.Metadata, which this package cannot name because
// partitionindex's own tests import it.
type PathBuilder[M any] interface {
	Add(key *partitioner.Key, position int64) error
	Complete() (M, error)
}

// BuildOnPaths builds keys (in order) at positions on every builder path,
// with the builder newBuilder returns for that path writing to w, and
// returns the file; the paths must write the same bytes, or it returns an
// error naming them and the first offset where they differ.
func BuildOnPaths[M any](keys []partitioner.Key, positions []int64, newBuilder func(w io.Writer, path buildpath.Path) PathBuilder[M]) ([]byte, error) {
	var files [len(buildpath.All)][]byte
	for i, path := range buildpath.All {
		var buf bytes.Buffer
		b := newBuilder(&buf, path)
		for j := range keys {
			if err := b.Add(&keys[j], positions[j]); err != nil {
				return nil, fmt.Errorf("%v path, key %d: %w", path, j, err)
			}
		}
		if _, err := b.Complete(); err != nil {
			return nil, fmt.Errorf("%v path: %w", path, err)
		}
		files[i] = buf.Bytes()
		if i > 0 && !bytes.Equal(files[0], files[i]) {
			return nil, fmt.Errorf("the %v and %v paths write different files (%d and %d bytes, first difference at offset %d)",
				buildpath.All[0], path, len(files[0]), len(files[i]), golden.FirstDiff(files[0], files[i]))
		}
	}
	return files[0], nil
}
