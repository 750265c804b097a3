// Package faultsink is what the failed-write tests of rowindex and
// tableindex share: a sink that refuses writes at random, after taking a
// random part of them (a full disk, a short network write), and Retry,
// which repeats a call the sink refused until it goes through. A writer
// whose failed calls leave it as before (style guide point 9) then writes
// the bytes a clean build writes. It is test infrastructure.
package faultsink

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"testing"
)

// ErrDisk is the error of a refused write.
var ErrDisk = errors.New("faultsink: disk full")

// maxRefusals bounds Retry: a call refused this many times in a row fails
// the test instead of looping. With a sink that refuses one write in two,
// 100 refusals in a row have a chance of 2^-100.
const maxRefusals = 100

// Sink refuses each write with probability 1/oneIn, after accepting a
// random part of it (none, some or all: a writer must not assume how much
// of a refused write went through).
type Sink struct {
	Out   bytes.Buffer // every byte the sink accepted, in order
	Fails int          // the writes it refused

	r     *rand.Rand
	oneIn int
}

// New returns a Sink that draws from r and refuses one write in oneIn on
// average (oneIn >= 2, so that a retried call goes through).
func New(r *rand.Rand, oneIn int) *Sink {
	return &Sink{r: r, oneIn: oneIn}
}

func (s *Sink) Write(p []byte) (int, error) {
	if s.r.IntN(s.oneIn) == 0 {
		s.Fails++
		n := s.r.IntN(len(p) + 1)
		s.Out.Write(p[:n])
		return n, ErrDisk
	}
	return s.Out.Write(p)
}

// Retry calls f until it returns nil. An error that is not ErrDisk, or
// more than maxRefusals in a row, fails tb.
func Retry(tb testing.TB, f func() error) {
	tb.Helper()
	for tries := 0; ; tries++ {
		err := f()
		if err == nil {
			return
		}
		if !errors.Is(err, ErrDisk) || tries >= maxRefusals {
			tb.Fatalf("after %d refused writes: %v", tries, err)
		}
	}
}
