//go:build invariants

package trie

import (
	"fmt"
	"io"
	"strings"
	"testing"
)

// Under the invariants tag AddShared checks the caller's shared length
// against the real common prefix. "abdx" shares 2 bytes with "abc"; a
// claimed 3 passes the order check (it equals the previous key's length)
// and would graft the key below "abc" without the check.
func TestAddSharedLengthChecked(t *testing.T) {
	w := NewWriter(io.Discard, Options{})
	if err := w.Add([]byte("abc"), 8, []byte{1}); err != nil {
		t.Fatal(err)
	}
	defer func() {
		msg := fmt.Sprint(recover())
		if !strings.Contains(msg, "AddShared told 3 shared bytes") || !strings.Contains(msg, "shares 2") {
			t.Fatalf("want the shared-length check to panic, got %q", msg)
		}
	}()
	_ = w.AddShared([]byte("abdx"), 3, 8, []byte{2})
}
