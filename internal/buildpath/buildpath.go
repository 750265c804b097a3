// Package buildpath names the two ways the project writes an index file:
// the production scratch path of partitionindex and rowindex, and the
// allocating reference path that checks it (byte for byte, in the golden
// and model tests, the fuzzers and `bti build --path reference`). It lives
// under internal/ because only this repository's tests and tools choose a
// path; a storage engine always gets the scratch one.
package buildpath

import "strconv"

// Path selects a writer implementation. Both write identical files.
type Path uint8

const (
	// Scratch is the production path: each key is encoded once into a slot
	// of a three-slot ring (package ring) and nothing is allocated per key.
	Scratch Path = iota
	// Reference is the straightforward allocating path, as Cassandra wrote
	// before it reused scratch bytes: keys are kept as values and encoded
	// afresh for every use. It exists to check and measure Scratch.
	Reference
)

// All lists every path, for tests that build each case on both.
var All = [...]Path{Scratch, Reference}

func (p Path) String() string {
	if p == Reference {
		return "reference"
	}
	return "scratch"
}

// Parse parses "scratch" or "reference" (the CLI's --path values).
func Parse(s string) (Path, error) {
	switch s {
	case "scratch":
		return Scratch, nil
	case "reference":
		return Reference, nil
	}
	return 0, &Error{Value: s}
}

// Error reports a --path value that names no path.
type Error struct{ Value string }

func (e *Error) Error() string {
	return "unknown path " + strconv.Quote(e.Value) + " (want scratch or reference)"
}
