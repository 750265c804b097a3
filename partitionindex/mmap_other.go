//go:build !unix

package partitionindex

import (
	"fmt"
	"os"

	"github.com/bti-go/bti/partitioner"
)

// Open reads the Partitions.db file at path into memory and opens it (this
// platform has no mmap support here).
func Open(path string, p partitioner.Partitioner) (*Index, error) {
	return openFile(path, func(data []byte) (*Index, error) { return NewIndex(data, p) })
}

// OpenAuto reads and opens the file at path with the partitioner
// DetectPartitioner finds.
func OpenAuto(path string) (*Index, error) { return openFile(path, NewIndexAuto) }

func openFile(path string, open func([]byte) (*Index, error)) (*Index, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	ix, err := open(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	ix.check.arm("Index from Open") // no mapping here, but one on unix
	return ix, nil
}
