//go:build !unix

package partitionindex

import "os"

// openFile reads the whole file: without mmap there is no page cache to
// share, so WarmUpBytes has nothing left to do.
func openFile(path string, opts OpenOptions) (*Index, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return indexOfFile(path, data, opts, nil) // nothing to release, but Close is checked as on unix
}
