//go:build !invariants

package partitionindex

// closeCheck is empty without the invariants tag: no field, no work.
type closeCheck struct{}

func armCloseCheck[T any](*closeCheck, *T, string) {}

func (*closeCheck) disarm() {}
