//go:build unix

package trie

import (
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

var pageSize = uintptr(os.Getpagesize())

// willNeedPages remembers the pages one ExactBatchCold call has asked the
// kernel for, so that each is asked for once: the walks of a batch meet on
// the same pages (a leaf usually shares its parent's page, the top levels
// are every walk's), and a repeated MADV_WILLNEED is a system call that
// does nothing. It is a direct-mapped table of the last page seen per slot
// (2 KiB, on the caller's stack): a page evicted from it by another with
// the same slot is asked for again, which costs a call, never an answer.
type willNeedPages struct {
	asked [256]uintptr // 1 + the page's address, 0 for an empty slot
}

// ask asks the kernel to read ahead the pages holding f[o] for every o in
// offs that it has not asked for yet (madvise MADV_WILLNEED; for a file
// mapping the read starts and the call returns). It changes no byte and
// reports no error: advice a kernel refuses leaves the later fault to read
// the page, as without it. It returns how many pages it asked for.
func (p *willNeedPages) ask(f []byte, offs []int64) int {
	base := uintptr(unsafe.Pointer(unsafe.SliceData(f)))
	asked := 0
	for _, o := range offs {
		page := (base + uintptr(o)) &^ (pageSize - 1)
		slot := &p.asked[(page/pageSize)%uintptr(len(p.asked))]
		if *slot == page+1 || page < base {
			continue // asked already, or the page starts before f (f's first page is f's to fault)
		}
		*slot = page + 1
		start := int64(page - base)
		_ = unix.Madvise(f[start:min(start+int64(pageSize), int64(len(f)))], unix.MADV_WILLNEED)
		asked++
	}
	return asked
}
