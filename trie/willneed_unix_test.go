//go:build unix

package trie

import (
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// ExactBatchCold asks for each page once per call: offsets on pages already
// asked for cost no system call, pages that share a slot of the table are
// both asked for, and a page that starts before the slice is left alone.
func TestWillNeedPagesAsksOnce(t *testing.T) {
	ps := int64(pageSize)
	m, err := unix.Mmap(-1, 0, int(600*ps), unix.PROT_READ, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	require.NoError(t, err)
	defer func() { require.NoError(t, unix.Munmap(m)) }()
	var p willNeedPages
	require.Equal(t, 3, p.ask(m, []int64{0, 10, ps + 1, 5, 2 * ps, ps + 7}), "pages 0, 1 and 2")
	require.Equal(t, 0, p.ask(m, []int64{3, ps, 2*ps + 100}), "asked already")
	require.Equal(t, 1, p.ask(m, []int64{256 * ps, 256*ps + 9}), "page 256 takes page 0's slot")
	require.Equal(t, 1, p.ask(m, []int64{12}), "page 0 again, its slot taken")
	require.Equal(t, 2, p.ask(m, []int64{599 * ps, 300 * ps}), "two new pages")
	// A slice that starts inside a page: that page is the slice's owner's
	// to fault.
	var fresh willNeedPages
	require.Equal(t, 1, fresh.ask(m[100:], []int64{0, ps - 100 + 1, 50}), "only the page after the first")
}
