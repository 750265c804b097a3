//go:build unix

package trie

import (
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

var pageSize = uintptr(os.Getpagesize())

// willNeed asks the kernel to read ahead the pages holding f[o] for every
// o in offs (madvise MADV_WILLNEED; for a file mapping the read starts and
// the call returns). It changes no byte and reports no error: advice a
// kernel refuses leaves the later fault to read the page, as without it.
func willNeed(f []byte, offs []int64) {
	base := uintptr(unsafe.Pointer(unsafe.SliceData(f)))
	last := ^uintptr(0)
	for _, o := range offs {
		page := (base + uintptr(o)) &^ (pageSize - 1)
		if page == last || page < base {
			continue // asked already, or the page starts before f (f's first page is f's to fault)
		}
		last = page
		start := int64(page - base)
		_ = unix.Madvise(f[start:min(start+int64(pageSize), int64(len(f)))], unix.MADV_WILLNEED)
	}
}
