//go:build !invariants

// Package invariants switches bug-only checks: assertions about the
// library's own state that no input can violate, compiled in only with
// -tags invariants (CI runs the tests both ways). They are never used for
// input validation, which always returns errors.
package invariants

// Enabled turns on the bug-only checks (go test -tags invariants).
const Enabled = false
