package workload

import (
	"fmt"
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// evictFile drops the file's clean pages from the page cache. Pages that
// are mapped somewhere stay; the caller unmaps its own first.
func evictFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED); err != nil {
		return fmt.Errorf("workload: evicting %s from the page cache: %w", path, err)
	}
	return nil
}

// residentPages counts the file's pages in the page cache with mincore
// on a fresh mapping that is never touched, so counting reads nothing.
func residentPages(path string) (resident, total int64, err error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || st.Size() == 0 {
		return 0, 0, err
	}
	m, err := unix.Mmap(int(f.Fd()), 0, int(st.Size()), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return 0, 0, fmt.Errorf("workload: mapping %s to count resident pages: %w", path, err)
	}
	defer unix.Munmap(m)
	page := int64(os.Getpagesize())
	vec := make([]byte, (st.Size()+page-1)/page)
	// x/sys/unix has no Mincore for Linux. The call reads len(m) bytes
	// of the mapping's residency into vec, one byte per page, and vec
	// has exactly that many.
	_, _, errno := unix.Syscall(unix.SYS_MINCORE, uintptr(unsafe.Pointer(unsafe.SliceData(m))), uintptr(len(m)), uintptr(unsafe.Pointer(unsafe.SliceData(vec))))
	if errno != 0 {
		return 0, 0, fmt.Errorf("workload: mincore %s: %w", path, errno)
	}
	for _, v := range vec {
		resident += int64(v & 1)
	}
	return resident, int64(len(vec)), nil
}

// majorFaults is this process's count of page faults that read from a
// device.
func majorFaults() int64 {
	var ru unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return int64(ru.Majflt) // int32 on 32-bit Linux
}
