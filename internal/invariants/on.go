//go:build invariants

package invariants

// Enabled turns on the bug-only checks (go test -tags invariants).
const Enabled = true
