// Package over4gib is what the tests of Partitions.db files past 4 GiB
// share (issue 20, item 3): partitionindex's TestOver4GiB and
// TestPastUint32Positions build such files and read them back, audit's
// TestCheckOver4GiB and TestCheckPastUint32Positions build the same files
// and check them. It is test infrastructure.
//
// The keys are ByteOrdered and come in pairs,
//
//	key(i) = BE64(i>>1) ‖ pad ‖ byte(i&1)
//
// so a pair shares its 8-byte counter and the whole pad and differs only
// in its last byte: both stored prefixes run to the end of the key, and
// the trie holds a chain of about len(pad) one-child nodes per pair. The
// pad sets the bytes per key, and with it how few keys it takes to pass
// 4 GiB. Positions are Rows.db offsets for every third key and Data.db
// offsets for the others (each kind increasing with the key, as an
// sstable writer writes them), all from 2^33 on: pos(i) names offset
// 2^33 + 16i.
package over4gib

import (
	"encoding/binary"
	"fmt"
	"os"
	"strconv"
	"testing"

	"github.com/bti-go/bti/internal/indexfile"
)

const (
	basePos = int64(1) << 33
	step    = 16
)

// Keys generates key(i) for one pad length, reusing one buffer.
type Keys struct {
	buf []byte
}

// NewKeys returns the generator of keys with pad bytes of padding.
func NewKeys(pad int) *Keys {
	k := &Keys{buf: make([]byte, 8+pad+1)}
	for j := range pad {
		// No 0x00 or 0xFF, so the escaped encoding is the pad itself.
		k.buf[8+j] = byte(0x41 + j%26)
	}
	return k
}

// Raw returns key(i); the bytes are valid until the next call.
func (k *Keys) Raw(i int64) []byte {
	binary.BigEndian.PutUint64(k.buf, uint64(i>>1))
	k.buf[len(k.buf)-1] = byte(i & 1)
	return k.buf
}

// RawWithLast returns key(i) with its last byte replaced by last and tail
// appended: keys that are absent but sort next to key(i).
func (k *Keys) RawWithLast(i int64, last byte, tail ...byte) []byte {
	b := append(k.Raw(i)[:len(k.buf)-1:len(k.buf)-1], last)
	return append(b, tail...)
}

// Pos returns pos(i).
func Pos(i int64) int64 {
	off := basePos + step*i
	if i%3 == 0 {
		return indexfile.RowIndexPosition(off)
	}
	return indexfile.DataPosition(off)
}

// Index returns i for a position Pos made.
func Index(pos int64) (int64, error) {
	off := indexfile.PositionOffset(pos) - basePos
	if off < 0 || off%step != 0 {
		return 0, fmt.Errorf("position %d is none of over4gib.Pos's", pos)
	}
	i := off / step
	if Pos(i) != pos {
		return 0, fmt.Errorf("position %d has the wrong sign for key %d", pos, i)
	}
	return i, nil
}

// Size returns the key count and pad length of the big file: 130M keys of
// 24 bytes of pad by default, or BTI_LONG_KEYS and BTI_LONG_PAD. custom
// says whether the count was set, so that a test need not insist the file
// passes 4 GiB.
func Size(tb testing.TB) (n int64, pad int, custom bool) {
	return envInt64(tb, "BTI_LONG_KEYS", 130_000_000), int(envInt64(tb, "BTI_LONG_PAD", 24)), os.Getenv("BTI_LONG_KEYS") != ""
}

// envInt64 reads a positive integer from the environment, or def.
func envInt64(tb testing.TB, name string, def int64) int64 {
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil || v <= 0 {
		tb.Fatalf("%s=%q: want a positive integer", name, s)
	}
	return v
}

// TempDir makes a directory for the big files, removed when tb ends: under
// BTI_LONG_DIR, else /work/tmp where /work exists (the shared machine's
// big disk; /tmp may be small), else the system temporary directory.
func TempDir(tb testing.TB, prefix string) string {
	dir := os.Getenv("BTI_LONG_DIR")
	if dir == "" {
		dir = os.TempDir()
		if _, err := os.Stat("/work"); err == nil {
			dir = "/work/tmp"
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		tb.Fatal(err)
	}
	dir, err := os.MkdirTemp(dir, prefix)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if err := os.RemoveAll(dir); err != nil {
			tb.Error(err)
		}
	})
	return dir
}
