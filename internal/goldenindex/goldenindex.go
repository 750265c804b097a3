// Package goldenindex reads the Cassandra-written Partitions.db cases of
// package internal/golden in full, as the tests of partitionindex and audit
// use them: partitioner parsed, keys, Cassandra's file. It is apart from
// internal/golden because it needs package partitioner, whose own tests
// import internal/golden.
package goldenindex

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/bti-go/bti/internal/golden"
	"github.com/bti-go/bti/internal/keystsv"
	"github.com/bti-go/bti/partitioner"
)

// Case is a golden case read in full: its partitioner parsed, its keys.tsv
// entries and the Partitions.db Cassandra wrote.
type Case struct {
	Name        string
	Partitioner partitioner.Partitioner
	Entries     []keystsv.Entry
	Want        []byte // Cassandra's Partitions.db
	Partials    []golden.Partial
}

// Cases reads every case in full, skipping tb as golden.Cases does.
func Cases(tb testing.TB) []Case {
	tb.Helper()
	var cases []Case
	for _, c := range golden.Cases(tb) {
		p, err := partitioner.Parse(c.Partitioner)
		if err != nil {
			tb.Fatalf("golden case %s: %v", c.Name, err)
		}
		cases = append(cases, Case{Name: c.Name, Partitioner: p, Entries: c.Entries(tb), Want: c.PartitionsDB(tb), Partials: c.Partials})
	}
	return cases
}

// Files returns every case's Partitions.db, to seed a fuzz target
// with; none, with a note in the log, where the folder is absent (the
// committed corpus still runs).
func Files(tb testing.TB) [][]byte {
	root, err := golden.Dir()
	if err != nil {
		tb.Fatal(err)
	}
	paths, _ := filepath.Glob(filepath.Join(root, "*", "Partitions.db"))
	if len(paths) == 0 {
		tb.Logf("golden cases not found at %s; seeding from testdata only", root)
	}
	var files [][]byte
	for _, path := range paths {
		if data, err := os.ReadFile(path); err == nil {
			files = append(files, data)
		}
	}
	return files
}
