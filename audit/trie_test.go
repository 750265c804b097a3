package audit

import (
	"bytes"
	"encoding/hex"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bti-go/bti/trie"
)

// Tests of DumpTrie, CountTrie and TriePathPages on hand-made tries and on
// damaged ones (moved here from package trie with the code; the golden and
// writer-output tests are in trie_golden_test.go).

func newTrie(t testing.TB, data []byte, root int64) *trie.Trie {
	t.Helper()
	tr, err := trie.New(trie.Source{File: data}, root)
	require.NoError(t, err)
	return tr
}

// chainTrie is a leaf (PAYLOAD_ONLY flags 8, payload aa 01) under n
// SINGLE_NOPAYLOAD_4 nodes on byte 'x', each right after its child: the
// first 3 bytes back, the others 2.
func chainTrie(n int) ([]byte, int64) {
	data := append([]byte{0x08, 0xAA, 0x01, 0x13, 'x'}, bytes.Repeat([]byte{0x12, 'x'}, n-1)...)
	return data, int64(2*n + 1)
}

// workedC is the trie of docs/format.md §10.3 (BOP keys "a", "ab", "b"),
// without the footer; its root is at 0x15.
const workedC = "085aff" + "08ad64" + "5002006206" + "03" + "08e9cd" + "a06101009003" + "1640"

func TestTrieToolsDeepChain(t *testing.T) {
	const depth = 200000
	data, root := chainTrie(depth)
	tr := newTrie(t, data, root)
	key := bytes.Repeat([]byte{'x'}, depth)

	st, err := CountTrie(tr)
	require.NoError(t, err)
	assert.Equal(t, depth, st.MaxDepth)
	assert.Equal(t, int64(depth+1), st.Nodes)
	assert.Equal(t, int64(depth), st.ByType[1], "SINGLE_NOPAYLOAD_4")
	pages := int(root/trie.DefaultPageSize) + 1
	require.Len(t, st.PagesPerPayload, pages+1)
	assert.Equal(t, int64(1), st.PagesPerPayload[pages])

	path, err := TriePathPages(nil, tr, key)
	require.NoError(t, err)
	require.Len(t, path, depth+1, "one page entry per node on the path")
	assert.Equal(t, root/trie.DefaultPageSize, path[0], "the root comes first")
	assert.Equal(t, int64(0), path[depth], "the leaf, written first, is on page 0")
	assert.Len(t, slices.Compact(path), pages, "every page from the root's down to 0, once each")

	lc := &lineCounter{}
	require.NoError(t, DumpTrie(lc, tr))
	assert.Equal(t, depth+1, lc.lines)
	assert.Less(t, lc.bytes, 120*(depth+1), "indentation is capped")
}

type lineCounter struct{ lines, bytes int }

func (c *lineCounter) Write(p []byte) (int, error) {
	c.lines += bytes.Count(p, []byte{'\n'})
	c.bytes += len(p)
	return len(p), nil
}

func TestDumpTrie(t *testing.T) {
	c, err := hex.DecodeString(workedC)
	require.NoError(t, err)
	tr := newTrie(t, c, 0x15)
	var buf bytes.Buffer
	require.NoError(t, DumpTrie(&buf, tr))
	assert.Equal(t, strings.Join([]string{
		"@15 SINGLE_NOPAYLOAD_4",
		"  40 -> @f DENSE_12",
		"    61 -> @6 SPARSE_8",
		"      00 -> @0 PAYLOAD_ONLY flags=8",
		"      62 -> @3 PAYLOAD_ONLY flags=8",
		"    62 -> @c PAYLOAD_ONLY flags=8",
		"",
	}, "\n"), buf.String())

	// A child in another page is marked "=>"; deep lines carry their depth.
	// The root is a SINGLE_16 (header 40) on byte 7a, 0x138c bytes after
	// its leaf.
	data := append([]byte{0x09, 1, 2, 3}, make([]byte, 5000)...)
	data = append(data, 0x40, 0x7A, 0x13, 0x8C)
	buf.Reset()
	require.NoError(t, DumpTrie(&buf, newTrie(t, data, 0x138C)))
	assert.Equal(t, "@138c SINGLE_16\n  7a => @0 PAYLOAD_ONLY flags=9\n", buf.String())

	chain, croot := chainTrie(40)
	buf.Reset()
	require.NoError(t, DumpTrie(&buf, newTrie(t, chain, croot)))
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	require.Len(t, lines, 41)
	assert.Equal(t, "[40] "+strings.Repeat("  ", maxIndent)+"78 -> @0 PAYLOAD_ONLY flags=8", lines[40])

	// Writer errors come back.
	assert.ErrorIs(t, DumpTrie(failWriter{}, tr), io.ErrShortWrite)
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, io.ErrShortWrite }

// TestTrieToolsCorruptPointers: self-pointers, forward pointers and cut
// nodes end the walks with the trie's corruption error; a leaf without
// payload is the checker's business, not the walks'. Each trie is a leaf
// (08 01 02) and the root at 3, except the last.
func TestTrieToolsCorruptPointers(t *testing.T) {
	for _, c := range []struct {
		name, hex string
		root      int64
		fails     bool
	}{
		{"SINGLE_NOPAYLOAD_4 distance 0", "080102" + "1061", 3, true},
		{"SINGLE_8 distance 0", "080102" + "206100", 3, true},
		{"SINGLE_8 forward", "080102" + "206109", 3, true},
		{"SPARSE_8 distance 0", "080102" + "5002616203" + "00", 3, true},
		{"LONG_DENSE negative", "080102" + "f06100" + "fffffffffffffffd", 3, true},
		{"truncated SPARSE_16", "080102" + "7002616200" + "0300", 3, true},
		{"DENSE_12 first slot empty", "080102" + "a06101000030", 3, true}, // its second slot: 0x030 back
		{"payload-less leaf", "00" + "1161", 1, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			data, err := hex.DecodeString(c.hex)
			require.NoError(t, err)
			tr := newTrie(t, data, c.root)
			_, serr := CountTrie(tr)
			derr := DumpTrie(io.Discard, tr)
			for _, err := range []error{serr, derr} {
				if !c.fails {
					require.NoError(t, err)
					continue
				}
				require.ErrorIs(t, err, trie.ErrCorrupt)
				var ce *trie.CorruptError
				require.True(t, errors.As(err, &ce))
				assert.Contains(t, ce.Error(), "corrupt index at offset")
				assert.Contains(t, ce.Reason, "trie")
			}
		})
	}
}

// TestTrieToolsSharedChildren builds a DAG of 60 levels whose nodes have two
// children that are the same node: 2^60 paths. CountTrie and DumpTrie must
// stop after about as many nodes as there are bytes.
func TestTrieToolsSharedChildren(t *testing.T) {
	data := []byte{0x08, 1, 2}
	for i := range 60 {
		d := byte(3) // each SPARSE_8 lies right after the node below it
		if i > 0 {
			d = 6
		}
		data = append(data, 0x50, 2, 'a', 'b', d, d)
	}
	tr := newTrie(t, data, int64(len(data)-6))
	_, err := CountTrie(tr)
	assert.ErrorIs(t, err, trie.ErrCorrupt)
	assert.ErrorIs(t, DumpTrie(io.Discard, tr), trie.ErrCorrupt)
	// Only the walks that follow every child give up: one path is fine.
	path, err := TriePathPages(nil, tr, bytes.Repeat([]byte{'b'}, 60))
	require.NoError(t, err)
	assert.Len(t, path, 61)
}
