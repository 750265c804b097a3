package refrows

import (
	"bytes"
	"io"
	"testing"

	"github.com/bti-go/bti/internal/buildpath"
	"github.com/bti-go/bti/rowindex"
)

// TestSeparatorGt: ByteSource.separatorGt over byte strings, end of stream
// counting as -1: the common prefix, then prev's next byte plus one.
func TestSeparatorGt(t *testing.T) {
	for _, tc := range []struct{ prev, cur, want []byte }{
		{[]byte{0x40, 0x80, 0x2c, 0x38}, []byte{0x40, 0x80, 0x31, 0x38}, []byte{0x40, 0x80, 0x2d}},
		{[]byte{0x40, 0x10}, []byte{0x40, 0x10, 0x05}, []byte{0x40, 0x10, 0x00}}, // prev ends: -1 + 1
		{[]byte{0x05}, []byte{0xff}, []byte{0x06}},
		{nil, []byte{0x01}, []byte{0x00}},
	} {
		if got := separatorGt(tc.prev, tc.cur); !bytes.Equal(got, tc.want) {
			t.Errorf("separatorGt(%x, %x) = %x, want %x", tc.prev, tc.cur, got, tc.want)
		}
	}
}

// TestNewPicksThePath: New gives the production writer for Scratch and the
// reference one for Reference.
func TestNewPicksThePath(t *testing.T) {
	if _, ok := New(buildpath.Scratch, io.Discard, rowindex.Options{}).(*rowindex.Writer); !ok {
		t.Error("Scratch is not *rowindex.Writer")
	}
	if _, ok := New(buildpath.Reference, io.Discard, rowindex.Options{}).(*Writer); !ok {
		t.Error("Reference is not *refrows.Writer")
	}
}
