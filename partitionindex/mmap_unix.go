//go:build unix

package partitionindex

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

func openFile(path string, open func([]byte) (*Index, error)) (*Index, error) {
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
	data, err := unix.Mmap(int(f.Fd()), 0, int(size), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return nil, fmt.Errorf("%s: mmap: %w", path, err)
	}
	// Lookups read the index at random: MADV_RANDOM stops each page fault
	// from reading ahead pages the next lookups are unlikely to want, and
	// MADV_WILLNEED starts reading the whole index into the page cache in
	// the background, so a cold index warms at disk bandwidth rather than
	// one fault per lookup. Both are hints: a kernel that refuses them
	// reads the same bytes, only later, so their errors are not Open's.
	_ = unix.Madvise(data, unix.MADV_RANDOM)
	_ = unix.Madvise(data, unix.MADV_WILLNEED)
	ix, err := open(data)
	if err != nil {
		_ = unix.Munmap(data)
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	ix.release = func() error { return unix.Munmap(data) }
	ix.check.arm("Index from Open")
	return ix, nil
}
