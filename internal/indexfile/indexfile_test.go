package indexfile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"testing"
)

// scriptedWriter takes, on each Write call, the number of bytes its script
// says (-1: all) and returns err with them.
type scriptedWriter struct {
	out    bytes.Buffer
	script []int
	err    error
}

func (w *scriptedWriter) Write(p []byte) (int, error) {
	if len(w.script) == 0 {
		return w.out.Write(p)
	}
	n := w.script[0]
	w.script = w.script[1:]
	if n < 0 {
		return w.out.Write(p)
	}
	if n <= len(p) {
		w.out.Write(p[:n])
	}
	return n, w.err
}

var errDisk = errors.New("disk full")

// TestBufferRetry: whatever a writer takes or refuses, the position never
// moves, the pending bytes are exactly what it did not take, and retries
// end with every byte written once, in order.
func TestBufferRetry(t *testing.T) {
	for _, tc := range []struct {
		name    string
		script  []int
		err     error
		wantErr error
	}{
		{"refused", []int{0}, errDisk, errDisk},
		{"short with error", []int{3}, errDisk, errDisk},
		{"short without error", []int{3}, nil, io.ErrShortWrite},
		{"over-reported", []int{100}, nil, io.ErrShortWrite},
		{"clean", []int{-1}, nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := &scriptedWriter{script: tc.script, err: tc.err}
			var b Buffer
			b.Reset(w, 1000, "test")
			b.B = append(b.B, "0123456789"...)
			if _, err := b.Write([]byte("ab")); err != nil {
				t.Fatal(err)
			}
			if got := b.Position(); got != 1012 {
				t.Fatalf("Position %d, want 1012", got)
			}
			err := b.Flush()
			if !errors.Is(err, tc.wantErr) || (tc.wantErr == nil) != (err == nil) {
				t.Fatalf("Flush: %v, want %v", err, tc.wantErr)
			}
			if got := b.Position(); got != 1012 {
				t.Fatalf("Position after a failed Flush %d, want 1012", got)
			}
			if got, want := b.Flushed()+int64(len(b.B)), int64(1012); got != want {
				t.Fatalf("Flushed %d + pending %d != %d", b.Flushed(), len(b.B), want)
			}
			if got, want := w.out.String()+string(b.B), "0123456789ab"; got != want {
				t.Fatalf("written %q + pending %q, want %q", w.out.String(), b.B, want)
			}
			if err := b.Flush(); err != nil {
				t.Fatal(err)
			}
			if w.out.String() != "0123456789ab" || len(b.B) != 0 || b.Flushed() != 1012 {
				t.Fatalf("after the retry: written %q, pending %q, flushed %d", w.out.String(), b.B, b.Flushed())
			}
		})
	}
}

func TestBufferErrorNamesOwnerAndOffset(t *testing.T) {
	var b Buffer
	b.Reset(&scriptedWriter{script: []int{4}, err: errDisk}, 10, "rowindex")
	b.B = append(b.B, "abcdefgh"...)
	err := b.Flush()
	if want := "rowindex: writing at offset 14: disk full"; err == nil || err.Error() != want {
		t.Fatalf("Flush: %v, want %q", err, want)
	}
}

func TestBufferFull(t *testing.T) {
	var b Buffer
	b.Reset(io.Discard, 0, "test")
	b.B = append(b.B, make([]byte, FlushThreshold-1)...)
	if b.Full() {
		t.Fatal("full one byte below the threshold")
	}
	b.B = append(b.B, 0)
	if !b.Full() {
		t.Fatal("not full at the threshold")
	}
}

func TestCorruptError(t *testing.T) {
	var err error = fmt.Errorf("opening: %w", &CorruptError{Offset: 42, Reason: "bad node"})
	if !errors.Is(err, ErrCorrupt) {
		t.Fatal("a wrapped *CorruptError does not match ErrCorrupt")
	}
	var ce *CorruptError
	if !errors.As(err, &ce) || ce.Offset != 42 {
		t.Fatalf("errors.As: %v", ce)
	}
	if want := "opening: bti: corrupt index at offset 42: bad node"; err.Error() != want {
		t.Fatalf("%q, want %q", err.Error(), want)
	}
	if errors.Is(errDisk, ErrCorrupt) {
		t.Fatal("an unrelated error matches ErrCorrupt")
	}
}

func TestPositions(t *testing.T) {
	for _, off := range []int64{0, 1, 4095, 1 << 40, math.MaxInt64} {
		if p := RowIndexPosition(off); IsDataPosition(p) || PositionOffset(p) != off || p != off {
			t.Errorf("RowIndexPosition(%d) = %d", off, p)
		}
		if p := DataPosition(off); !IsDataPosition(p) || PositionOffset(p) != off {
			t.Errorf("DataPosition(%d) = %d", off, p)
		}
	}
	if DataPosition(0) != -1 {
		t.Error("Data.db offset 0 is not stored as -1")
	}
	if DataPosition(math.MaxInt64) != NotFound {
		t.Error("NotFound is not the complement of the largest offset")
	}
}

func TestKeyError(t *testing.T) {
	tooLong := errors.New("pkg: key too long")
	for _, tc := range []struct {
		err  *KeyError
		want string
	}{
		{&KeyError{Err: ErrKeyOrder, Index: 3, Key: []byte{1, 2}, Prev: []byte{1, 3}}, "bti: keys out of order: key #3 0102 does not sort after previous key 0103"},
		{&KeyError{Err: ErrKeyOrder, Index: 4, Key: []byte{7}, Prev: []byte{7}}, "bti: keys out of order: key #4 07 equals the previous key"},
		{&KeyError{Err: tooLong, Index: 0, Key: bytes.Repeat([]byte{0xab}, 70), Pos: -5}, "pkg: key too long: key #0 " + strings.Repeat("ab", 64) + "… (70 bytes) with position -5"},
	} {
		if got := tc.err.Error(); got != tc.want {
			t.Errorf("%q, want %q", got, tc.want)
		}
		if !errors.Is(tc.err, tc.err.Err) {
			t.Errorf("%v does not match its Err", tc.err)
		}
	}
}
