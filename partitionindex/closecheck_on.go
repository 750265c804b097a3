//go:build invariants

package partitionindex

import (
	"fmt"
	"runtime"
	"runtime/debug"
)

// closeCheck finds an Index or Reader that is dropped without Close (see
// "Forgetting Close" in the package documentation). arm hangs a sentinel
// off the object; the sentinel has a finalizer and nothing but the object
// points to it, so when the object becomes garbage the sentinel does too and
// the finalizer reports where the object was opened. Close disarms it.
//
// The finalizer sits on the sentinel, not on the Reader, because a Reader
// points to itself (its Iterator refers back to it) and the runtime never
// finalizes an object that is reachable from itself.
type closeCheck struct{ s *openedAt }

type openedAt struct {
	what  string
	stack []byte
}

func (c *closeCheck) arm(what string) {
	s := &openedAt{what: what, stack: debug.Stack()}
	runtime.SetFinalizer(s, reportUnclosed)
	c.s = s
}

func (c *closeCheck) disarm() {
	if c.s != nil {
		runtime.SetFinalizer(c.s, nil)
		c.s = nil
	}
}

// reportUnclosed runs on the finalizer goroutine. It panics, which ends the
// test binary (or program) with the message: a leak found in a test must
// fail it, and a finalizer has no test to fail.
func reportUnclosed(s *openedAt) {
	panic(fmt.Sprintf("partitionindex: %s garbage collected without Close; it was opened at:\n%s", s.what, s.stack))
}
