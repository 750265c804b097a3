package main

import (
	"fmt"
	"os"

	"github.com/bti-go/bti/audit"
	"github.com/bti-go/bti/partitionindex"
)

// auditTable does what a tool does with the two files, through the audit
// package (which the engine-facing code above never imports): it detects
// the partition index's partitioner from its footer, checks the file
// against the writer's layout rules, and checks the row index against it.
func auditTable(partsPath, rowsPath string) error {
	ix, err := audit.OpenDetected(partsPath, partitionindex.OpenOptions{})
	if err != nil {
		return err
	}
	defer ix.Close()
	rep, err := audit.CheckPartitions(ix, audit.Options{})
	if err != nil {
		return err
	}
	if !rep.OK() {
		return fmt.Errorf("%s: %d problems, first %v", partsPath, rep.ProblemCount, rep.Problems[0])
	}
	rows, err := os.ReadFile(rowsPath)
	if err != nil {
		return err
	}
	rowsRep, err := audit.CheckTable(ix, rows, audit.Options{})
	if err != nil {
		return err
	}
	if !rowsRep.OK() {
		return fmt.Errorf("%s: %d problems, first %v", rowsPath, rowsRep.ProblemCount, rowsRep.Problems[0])
	}
	fmt.Printf("consumer: audited the table index (%v detected): %d trie nodes, %d row index entries with %d blocks, no problem\n",
		ix.Partitioner(), rep.Nodes, rowsRep.Entries, rowsRep.Blocks)
	return nil
}
