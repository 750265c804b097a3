//go:build unix

package main

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// mapFile maps the file at path read-only, so a command that reads a
// Partitions.db or Rows.db of any size holds none of it on its heap: the
// pages it touches come in through the page cache, where the kernel can
// drop them again under pressure. MADV_SEQUENTIAL lets the kernel read
// ahead and free pages behind a front-to-back reader (dump, check); the
// advice is a hint, so its error is not ours. unmap releases the mapping.
func mapFile(path string) (data []byte, unmap func() error, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	size := st.Size()
	if size == 0 {
		return []byte{}, func() error { return nil }, nil // mmap refuses an empty length
	}
	if int64(int(size)) != size {
		return nil, nil, fmt.Errorf("%s: file of %d bytes is too large to map", path, size)
	}
	data, err = unix.Mmap(int(f.Fd()), 0, int(size), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: mmap: %w", path, err)
	}
	_ = unix.Madvise(data, unix.MADV_SEQUENTIAL)
	return data, func() error { return unix.Munmap(data) }, nil
}
