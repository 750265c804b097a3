//go:build unix

package partitionindex

import (
	"fmt"
	"io"
	"os"

	"golang.org/x/sys/unix"
)

func openFile(path string, opts OpenOptions) (*Index, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	size := st.Size()
	if size < footerLength {
		return nil, fmt.Errorf("%s: %w", path, &CorruptError{Offset: 0, Reason: fmt.Sprintf("file is %d bytes, too short for the %d-byte footer", size, footerLength)})
	}
	if int64(int(size)) != size {
		return nil, fmt.Errorf("%s: file of %d bytes is too large to map", path, size)
	}
	if err := warmUp(f, size, opts.WarmUpBytes); err != nil {
		return nil, fmt.Errorf("%s: warm-up: %w", path, err)
	}
	data, err := unix.Mmap(int(f.Fd()), 0, int(size), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return nil, fmt.Errorf("%s: mmap: %w", path, err)
	}
	// Lookups read the index at random: MADV_RANDOM stops each page fault
	// from reading ahead pages the next lookups are unlikely to want, so a
	// cold lookup brings in the pages its path crosses and no more. Open
	// deliberately does not ask MADV_WILLNEED for the file: on a large
	// index that reads the whole file into the page cache (Cassandra met a
	// 309 GiB one), and its cost would grow with the file. WarmUpBytes is
	// the bounded opt-in. The advice is a hint: a kernel that refuses it
	// reads the same bytes, only with read-ahead, so its error is not
	// Open's.
	_ = unix.Madvise(data, unix.MADV_RANDOM)
	return indexOfFile(path, data, opts, func() error { return unix.Munmap(data) })
}

// warmUp reads the last n bytes of the file (all of it if n >= size) in
// warmUpChunk reads, from the end backwards so the top of the trie arrives
// first, leaving them in the page cache. pread goes through the page cache
// like the mapping's faults do, so the mapped pages are then resident.
func warmUp(f *os.File, size, n int64) error {
	if n <= 0 {
		return nil
	}
	start := max(size-n, 0)
	buf := make([]byte, min(warmUpChunk, size-start))
	for end := size; end > start; {
		off := max(end-int64(len(buf)), start)
		if _, err := f.ReadAt(buf[:end-off], off); err != nil && err != io.EOF {
			return err
		}
		end = off
	}
	return nil
}
