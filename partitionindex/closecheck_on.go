//go:build invariants

package partitionindex

import (
	"fmt"
	"runtime"
	"runtime/debug"
)

// closeCheck finds an Index or Reader that is dropped without Close (see
// "Forgetting Close" in the package documentation). armCloseCheck registers
// a runtime.AddCleanup on the object itself, carrying where it was opened;
// when the object becomes unreachable the cleanup reports it. Close
// disarms it. Unlike a finalizer, a cleanup runs for an object that points
// to itself (a Reader does, through its Iterator), so no sentinel object is
// needed.
type closeCheck struct {
	cleanup runtime.Cleanup
	armed   bool
}

type openedAt struct {
	what  string
	stack []byte
}

// armCloseCheck arms c, a field of owner.
func armCloseCheck[T any](c *closeCheck, owner *T, what string) {
	c.cleanup = runtime.AddCleanup(owner, reportUnclosed, openedAt{what: what, stack: debug.Stack()})
	c.armed = true
}

func (c *closeCheck) disarm() {
	if c.armed {
		c.cleanup.Stop()
		c.armed = false
	}
}

// reportUnclosed runs on the cleanup goroutine. It panics, which ends the
// test binary (or program) with the message: a leak found in a test must
// fail it, and a cleanup has no test to fail.
func reportUnclosed(s openedAt) {
	panic(fmt.Sprintf("partitionindex: %s garbage collected without Close; it was opened at:\n%s", s.what, s.stack))
}
