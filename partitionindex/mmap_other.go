//go:build !unix

package partitionindex

import (
	"fmt"
	"os"
)

// openFile reads the whole file: without mmap there is no page cache to
// share, so WarmUpBytes has nothing left to do.
func openFile(path string, opts OpenOptions) (*Index, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	ix, err := NewIndex(data, opts)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	armCloseCheck(&ix.check, ix, "Index from Open") // no mapping here, but one on unix
	return ix, nil
}
