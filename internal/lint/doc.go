// Package lint holds the repository's own static checks, run by go test
// like any other test (as pebble's internal/lint does): which packages may
// import which (imports_test.go), what the public packages export
// (api_test.go, against testdata/api.txt), and that comments cite the
// module's own docs/format.md by sections and quirks it has
// (docrefs_test.go). CI runs staticcheck beside it, pinned in .ci/run. The
// package has no code of its own.
package lint
