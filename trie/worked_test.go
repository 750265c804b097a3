package trie

import (
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The worked files of docs/format.md §10, typed in from the document.

func withFooter(trie []byte, first, last string, count, root int64) []byte {
	firstKeyPos := int64(len(trie))
	out := append([]byte{}, trie...)
	out = binary.BigEndian.AppendUint16(out, uint16(len(first)))
	out = append(out, first...)
	out = binary.BigEndian.AppendUint16(out, uint16(len(last)))
	out = append(out, last...)
	out = binary.BigEndian.AppendUint64(out, uint64(firstKeyPos))
	out = binary.BigEndian.AppendUint64(out, uint64(count))
	return binary.BigEndian.AppendUint64(out, uint64(root))
}

// openIndex opens the trie of a Partitions.db image the way the partition
// index will: the trie is everything before firstKeyPos.
func openIndex(t testing.TB, data []byte) (*Trie, int64) {
	fkp, count, root := footer(t, data)
	require.LessOrEqual(t, fkp, int64(len(data)-24))
	tr, err := New(Source{File: data[:fkp]}, root)
	require.NoError(t, err)
	return tr, count
}

// openWorked opens a worked file, checking its length and footer count
// against the document's.
func openWorked(t *testing.T, data []byte, size int, wantCount int64) *Trie {
	t.Helper()
	require.Len(t, data, size)
	tr, count := openIndex(t, data)
	assert.Equal(t, wantCount, count)
	return tr
}

func TestWorkedEmpty(t *testing.T) {
	tr := openWorked(t, withFooter([]byte{0x00}, "", "", 0, 0), 29, 0)
	w := tr.Walker()
	n, ok, err := w.Exact(bop("a"))
	require.NoError(t, err)
	assert.False(t, ok)
	assert.Equal(t, int64(-1), n)
	at, gr, err := w.Ceiling(bop("a"))
	require.NoError(t, err)
	assert.Equal(t, [2]int64{-1, -1}, [2]int64{at, gr})
	at, ls, err := w.Floor(bop("a"))
	require.NoError(t, err)
	assert.Equal(t, [2]int64{-1, -1}, [2]int64{at, ls})
	f, err := w.First()
	require.NoError(t, err)
	assert.Equal(t, int64(-1), f)
	l, err := w.Last()
	require.NoError(t, err)
	assert.Equal(t, int64(-1), l)
	assert.Empty(t, iterAll(t, tr, nil, nil, true))
	assert.Empty(t, iterAllReverse(t, tr, nil, nil, true))
}

func TestWorkedOneKey(t *testing.T) {
	tr := openWorked(t, withFooter([]byte{0x08, 0xAD, 0xFF}, "ab", "ab", 1, 0), 35, 1)
	w := tr.Walker()
	for _, k := range [][]byte{bop("ab"), bop("zz"), nil} {
		n, ok, err := w.Exact(k)
		require.NoError(t, err)
		assert.True(t, ok, "every key lands on the root candidate")
		assert.Equal(t, int64(0), n)
		at, gr, err := w.Ceiling(k)
		require.NoError(t, err)
		assert.Equal(t, [2]int64{0, -1}, [2]int64{at, gr})
		at, ls, err := w.Floor(k)
		require.NoError(t, err)
		assert.Equal(t, [2]int64{0, -1}, [2]int64{at, ls})
	}
	flags, p, err := tr.Payload(0)
	require.NoError(t, err)
	assert.Equal(t, uint8(8), flags)
	assert.Equal(t, []byte{0xAD, 0xFF}, p)
	assert.Equal(t, []int64{0}, iterAll(t, tr, nil, nil, true))
	assert.Equal(t, []int64{0}, iterAllReverse(t, tr, nil, nil, true))
}

// fileC is docs/format.md §10.3: BOP keys "a" → −1, "ab" → 100, "b" → −51.
func fileC() []byte {
	trie := []byte{
		0x08, 0x5A, 0xFF, // @00 leaf "a"
		0x08, 0xAD, 0x64, // @03 leaf "ab"
		0x50, 0x02, 0x00, 0x62, 0x06, 0x03, // @06 SPARSE_8
		0x08, 0xE9, 0xCD, // @0C leaf "b"
		0xA0, 0x61, 0x01, 0x00, 0x90, 0x03, // @0F DENSE_12
		0x16, 0x40, // @15 root SINGLE_NOPAYLOAD_4
	}
	return withFooter(trie, "a", "b", 3, 0x15)
}

func TestWorkedThreeKeys(t *testing.T) {
	tr := openWorked(t, fileC(), 53, 3)
	assert.Equal(t, int64(0x15), tr.Root())
	w := tr.Walker()

	for _, c := range []struct {
		key  string
		node int64
	}{{"a", 0x00}, {"ab", 0x03}, {"b", 0x0C}} {
		n, ok, err := w.Exact(bop(c.key))
		require.NoError(t, err)
		assert.True(t, ok, c.key)
		assert.Equal(t, c.node, n, c.key)
	}
	// "ac" stops at @06 on byte 63, which has children.
	n, ok, err := w.Exact(bop("ac"))
	require.NoError(t, err)
	assert.False(t, ok)
	assert.Equal(t, int64(-1), n)

	for _, c := range []struct {
		key             string
		ceilAt, greater int64
		floorAt, lesser int64
	}{
		{"ac", -1, 0x0C, -1, 0x03},  // ceiling "b", floor "ab"
		{"aaa", -1, 0x03, -1, 0x00}, // ceiling "ab", floor "a"
		{"a", 0x00, 0x03, 0x00, -1},
		{"ab", 0x03, 0x0C, 0x03, 0x00},
		{"b", 0x0C, -1, 0x0C, 0x03},
		{"c", -1, -1, -1, 0x0C},
		{"", -1, 0x00, -1, -1}, // 40 00 40 00 38: below "a"
	} {
		at, gr, err := w.Ceiling(bop(c.key))
		require.NoError(t, err)
		assert.Equal(t, [2]int64{c.ceilAt, c.greater}, [2]int64{at, gr}, "ceiling %q", c.key)
		at, ls, err := w.Floor(bop(c.key))
		require.NoError(t, err)
		assert.Equal(t, [2]int64{c.floorAt, c.lesser}, [2]int64{at, ls}, "floor %q", c.key)
	}

	for _, c := range []struct {
		key  string
		flag uint8
		p    []byte
	}{{"a", 8, []byte{0x5A, 0xFF}}, {"ab", 8, []byte{0xAD, 0x64}}, {"b", 8, []byte{0xE9, 0xCD}}} {
		n, _, err := w.Exact(bop(c.key))
		require.NoError(t, err)
		f, p, err := tr.Payload(n)
		require.NoError(t, err)
		assert.Equal(t, c.flag, f)
		assert.Equal(t, c.p, p[:2])
	}

	assert.Equal(t, []int64{0x00, 0x03, 0x0C}, iterAll(t, tr, nil, nil, true))
	assert.Equal(t, []int64{0x0C, 0x03, 0x00}, iterAllReverse(t, tr, nil, nil, true))

	// Bounded iteration (docs/format.md §9.5).
	for _, c := range []struct {
		start, end string
		admit      bool
		fwd        []int64
	}{
		{"aaa", "ab", true, []int64{0x03}},
		{"a", "", true, []int64{0x00, 0x03, 0x0C}},
		{"a", "", false, []int64{0x03, 0x0C}},
		{"ab", "b", true, []int64{0x03, 0x0C}},
		{"ab", "b", false, []int64{0x0C}},
		{"a", "ab", true, []int64{0x00, 0x03}},
		{"ac", "", true, []int64{0x0C}},
	} {
		var end []byte
		if c.end != "" {
			end = bop(c.end)
		}
		got := iterAll(t, tr, bop(c.start), end, c.admit)
		assert.Equal(t, c.fwd, got, "forward %q..%q admit=%v", c.start, c.end, c.admit)
	}
	// Reverse with both bounds is the forward list reversed.
	assert.Equal(t, []int64{0x03, 0x00}, iterAllReverse(t, tr, bop("a"), bop("ab"), true))
	assert.Equal(t, []int64{0x03}, iterAllReverse(t, tr, bop("a"), bop("ab"), false))
	assert.Equal(t, []int64{0x03}, iterAllReverse(t, tr, bop("aaa"), bop("ab"), true))
	// The quirk: no end bound, admitted prefix would come first → dropped.
	assert.Empty(t, iterAllReverse(t, tr, bop("b"), nil, true))
	assert.Equal(t, []int64{0x0C}, iterAllReverse(t, tr, bop("b"), bop("b"), true))
	// ... but kept when it is not first.
	assert.Equal(t, []int64{0x0C, 0x03}, iterAllReverse(t, tr, bop("ab"), nil, true))
}

// fileD is docs/format.md §10.4: Murmur3, CQL int keys 1..5.
func fileD() []byte {
	trie := []byte{
		0x08, 0xC1, 0xA5, // @00 key 5
		0x08, 0xE6, 0xFF, // @03 key 1
		0x08, 0xE1, 0xE1, // @06 key 2
		0x09, 0x02, 0x10, 0x00, // @09 key 4
		0x08, 0x33, 0xC3, // @0D key 3
		0x50, 0x05, 0x17, 0x47, 0x52, 0x5A, 0xFD, 0x10, 0x0D, 0x0A, 0x07, 0x03, // @10 SPARSE_8
		0x1C, 0x40, // @1C root
	}
	return withFooter(trie, "\x00\x00\x00\x05", "\x00\x00\x00\x03", 5, 0x1C)
}

func TestWorkedMurmurInts(t *testing.T) {
	tr := openWorked(t, fileD(), 66, 5)
	w := tr.Walker()
	key1 := []byte{0x40, 0x47, 0x84, 0x99, 0x98, 0x2A, 0xE4, 0xE0, 0xCF, 0x40, 0x00, 0xFE, 0xFE, 0xFF, 0x01, 0x00, 0x38}
	n, ok, err := w.Exact(key1)
	require.NoError(t, err)
	assert.True(t, ok)
	assert.Equal(t, int64(0x03), n)
	// Only the first token byte is stored: any continuation lands on the leaf.
	for b, node := range map[byte]int64{0x17: 0x00, 0x47: 0x03, 0x52: 0x06, 0x5A: 0x09, 0xFD: 0x0D} {
		n, ok, err := w.Exact([]byte{0x40, b, 0x12, 0x34})
		require.NoError(t, err)
		assert.True(t, ok)
		assert.Equal(t, node, n)
	}
	n, ok, err = w.Exact([]byte{0x40, 0x50, 0x00})
	require.NoError(t, err)
	assert.False(t, ok)
	assert.Equal(t, int64(-1), n)

	for _, c := range []struct {
		key                              []byte
		ceilAt, greater, floorAt, lesser int64
	}{
		{[]byte{0x40, 0x50}, -1, 0x06, -1, 0x03},
		{[]byte{0x40, 0xFE}, -1, -1, -1, 0x0D},
		{[]byte{0x40, 0x00}, -1, 0x00, -1, -1},
		{[]byte{0x40, 0x52}, 0x06, 0x09, 0x06, 0x03},
		{nil, -1, 0x00, -1, -1},
		{[]byte{0x41}, -1, -1, -1, 0x0D},
		{[]byte{0x3F}, -1, 0x00, -1, -1},
	} {
		at, gr, err := w.Ceiling(c.key)
		require.NoError(t, err)
		assert.Equal(t, [2]int64{c.ceilAt, c.greater}, [2]int64{at, gr}, "ceiling % x", c.key)
		at, ls, err := w.Floor(c.key)
		require.NoError(t, err)
		assert.Equal(t, [2]int64{c.floorAt, c.lesser}, [2]int64{at, ls}, "floor % x", c.key)
	}
	f, p, err := tr.Payload(0x09)
	require.NoError(t, err)
	assert.Equal(t, uint8(9), f)
	assert.Equal(t, []byte{0x02, 0x10, 0x00}, p[:3])

	all := []int64{0x00, 0x03, 0x06, 0x09, 0x0D}
	assert.Equal(t, all, iterAll(t, tr, nil, nil, true))
	assert.Equal(t, []int64{0x0D, 0x09, 0x06, 0x03, 0x00}, iterAllReverse(t, tr, nil, nil, true))
	first, err := w.First()
	require.NoError(t, err)
	last, err := w.Last()
	require.NoError(t, err)
	assert.Equal(t, [2]int64{0x00, 0x0D}, [2]int64{first, last})
	// Bounds inside the token space.
	assert.Equal(t, []int64{0x06, 0x09}, iterAll(t, tr, []byte{0x40, 0x50}, []byte{0x40, 0x5A, 0xFF}, true))
	assert.Equal(t, []int64{0x09, 0x06}, iterAllReverse(t, tr, []byte{0x40, 0x50}, []byte{0x40, 0x5A, 0xFF}, true))
}
