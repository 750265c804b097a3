package faultsink

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// TestSink: about one write in oneIn is refused, a refused write reports
// the part it kept, and Out holds exactly what was reported taken.
func TestSink(t *testing.T) {
	s := New(rand.New(rand.NewPCG(1, 1)), 3)
	var want bytes.Buffer
	const writes = 3000
	for i := range writes {
		p := bytes.Repeat([]byte{byte(i)}, 1+i%7)
		n, err := s.Write(p)
		if err != nil && err != ErrDisk || err == nil && n != len(p) || n < 0 || n > len(p) {
			t.Fatalf("write %d: %d, %v", i, n, err)
		}
		want.Write(p[:n])
	}
	if s.Fails < writes/4 || s.Fails > writes*5/12 {
		t.Errorf("%d of %d writes refused, want about a third", s.Fails, writes)
	}
	if !bytes.Equal(s.Out.Bytes(), want.Bytes()) {
		t.Error("Out differs from the parts the writes reported taken")
	}
}

// TestRetry: a call refused by the sink is repeated until it goes through.
func TestRetry(t *testing.T) {
	s := New(rand.New(rand.NewPCG(2, 2)), 2)
	calls := 0
	for range 200 {
		Retry(t, func() error {
			calls++
			_, err := s.Write([]byte("x"))
			return err
		})
	}
	if calls-s.Fails != 200 || s.Fails == 0 {
		t.Errorf("%d calls, %d refused: want 200 that went through", calls, s.Fails)
	}
}
