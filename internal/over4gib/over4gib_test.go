package over4gib

import (
	"bytes"
	"testing"
)

// TestKeysAndPositions: keys increase, pairs differ only in their last
// byte, and Index inverts Pos (and refuses what Pos never makes).
func TestKeysAndPositions(t *testing.T) {
	k := NewKeys(5)
	prev := bytes.Clone(k.Raw(0))
	for i := int64(1); i < 100; i++ {
		cur := k.Raw(i)
		if bytes.Compare(prev, cur) >= 0 {
			t.Fatalf("key %d %x does not sort after %x", i, cur, prev)
		}
		if i%2 == 1 && !bytes.Equal(prev[:len(prev)-1], cur[:len(cur)-1]) {
			t.Errorf("pair %d differs before its last byte", i/2)
		}
		if got, err := Index(Pos(i)); err != nil || got != i {
			t.Errorf("Index(Pos(%d)) = %d, %v", i, got, err)
		}
		prev = bytes.Clone(cur)
	}
	if _, err := Index(Pos(3) + 1); err == nil {
		t.Error("Index accepted a position between two of Pos's")
	}
	if _, err := Index(^Pos(4)); err == nil {
		t.Error("Index accepted a position of the wrong sign")
	}
}
