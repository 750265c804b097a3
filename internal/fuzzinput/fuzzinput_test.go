package fuzzinput

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/bti-go/bti/internal/partitionfile"
	"github.com/bti-go/bti/partitioner"
)

func TestKeys(t *testing.T) {
	got := Keys([]byte("\x02ab\x00\x29c\x05xy"))
	want := [][]byte{[]byte("ab"), {}, []byte("c"), []byte("xy")} // 0x29 = 41 is 1 mod 40; the last is cut short
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Keys = %q, want %q", got, want)
	}
}

// TestViewRoundTrip: View reads back what ViewSeed wrote.
func TestViewRoundTrip(t *testing.T) {
	v := partitionfile.View{Partitioner: partitioner.ByteOrdered, Root: 70, Cutoff: 64, Count: 3, Tail: []byte{1, 2, 3}, FirstKey: []byte("a"), LastKey: []byte("zz")}
	file := bytes.Repeat([]byte{9}, 100) // longer than the cutoff: cut to it
	data, keys := ViewSeed(file, &v)
	gotFile, got, ok := View(data, false, 0, keys)
	if !ok || !bytes.Equal(gotFile, file[:64]) || !reflect.DeepEqual(got, v) {
		t.Errorf("View(ViewSeed) = %v %x %+v, want %x %+v", ok, gotFile, got, file[:64], v)
	}
	if _, _, ok := View(data[:31], false, 0, nil); ok {
		t.Error("31 bytes read as a view")
	}
}

func TestPosition(t *testing.T) {
	sizes := map[int]bool{}
	for i := range 40 {
		p := Position(i)
		if (p < 0) != (i%2 == 1) {
			t.Errorf("Position(%d) = %d: wrong sign", i, p)
		}
		if p < 0 {
			p = ^p
		}
		n := 0
		for ; p > 0; p >>= 8 {
			n++
		}
		sizes[n] = true
	}
	if len(sizes) < 9 {
		t.Errorf("positions take %d distinct byte lengths, want every one of 0..8 (0 for position 0)", len(sizes))
	}
}
