package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/bti-go/bti/partitioner"
	"github.com/bti-go/bti/partitionindex"
	"github.com/bti-go/bti/trie"
)

const checkUsage = `usage: bti check --index Partitions.db [--partitioner auto|P] [--positions any|increasing] [--format text|json]

Audits Partitions.db on its own, without its keys, against the rules the
writer (ours and Cassandra's) lays files out by: footer, node types and
pointers, page boundaries and padding, reachability, prefix order and cut,
the grammar of the partitioner's key encoding,
and with --positions increasing the order of the stored positions (true of
a file written by an sstable writer; not of the synthetic golden key sets).
Prints counts per node type, the depth and pages-per-lookup histograms,
the padding and every problem found (the first --max-problems, with a
total): offset, node, rule, detail.

Exit status: 0 clean, 1 problems found, 2 unreadable (the footer cannot be
read).
`

// checkFlags are the flags bti check and bti verify --deep share.
type checkFlags struct {
	positions   *string
	pageSize    *int
	maxProblems *int
}

func addCheckFlags(fs interface {
	String(name, value, usage string) *string
	Int(name string, value int, usage string) *int
}) checkFlags {
	return checkFlags{
		positions:   fs.String("positions", "any", "any, or increasing: Data.db and Rows.db positions each increase with key order"),
		pageSize:    fs.Int("page-size", 4096, "page size the file was written with (tests use tiny pages)"),
		maxProblems: fs.Int("max-problems", 20, "problems listed one by one (all are counted)"),
	}
}

func (f checkFlags) options() (partitionindex.CheckOptions, error) {
	opts := partitionindex.CheckOptions{PageSize: *f.pageSize, MaxProblems: *f.maxProblems}
	switch *f.positions {
	case "any":
	case "increasing":
		opts.Positions = partitionindex.PositionsIncreasing
	default:
		return opts, usagef("--positions %q: want any or increasing", *f.positions)
	}
	if *f.pageSize <= 0 {
		return opts, usagef("--page-size %d: want a positive size", *f.pageSize)
	}
	if *f.maxProblems <= 0 {
		return opts, usagef("--max-problems %d: want at least 1", *f.maxProblems)
	}
	return opts, nil
}

func runCheck(args []string, stdout, _ io.Writer) error {
	fs := newFlags("check", checkUsage)
	index := fs.String("index", "", "Partitions.db to check (required)")
	part := addPartitionerFlag(fs, true)
	format := fs.String("format", "text", "text or json")
	cf := addCheckFlags(fs)
	rest, err := parseFlags(fs, args, stdout)
	if err != nil {
		return err
	}
	if err := noArgs(rest); err != nil {
		return err
	}
	if err := required(fs, "index"); err != nil {
		return err
	}
	if err := oneOf("format", *format, "text", "json"); err != nil {
		return err
	}
	opts, err := cf.options()
	if err != nil {
		return err
	}
	ix, err := openForCheck(*index, *part, &opts)
	if err != nil {
		return err
	}
	defer ix.Close()
	rep, err := partitionindex.Check(ix, opts)
	if err != nil {
		return fmt.Errorf("%s: %w", *index, err)
	}
	if *format == "json" {
		err = writeCheckJSON(stdout, *index, opts, rep)
	} else {
		err = writeCheckText(stdout, *index, opts, rep)
	}
	if err != nil {
		return err
	}
	if !rep.OK() {
		return &checkFailed{fmt.Sprintf("FAILED: %s breaks the writer's rules: %d problems", *index, rep.ProblemCount)}
	}
	return nil
}

// partitionerLine says which partitioner the footer's keys were checked
// under and how it was chosen.
func partitionerLine(opts partitionindex.CheckOptions, rep *partitionindex.CheckReport) string {
	if !opts.DetectPartitioner {
		return rep.Partitioner.String()
	}
	switch len(rep.Partitioners) {
	case 0:
		return "unknown (the footer's keys fit none)"
	case 1:
		return rep.Partitioner.String() + " (detected)"
	}
	names := make([]string, len(rep.Partitioners))
	for i, p := range rep.Partitioners {
		names[i] = p.String()
	}
	return "any of " + strings.Join(names, ", ") + " (too few keys to tell)"
}

func writeCheckText(w io.Writer, name string, opts partitionindex.CheckOptions, rep *partitionindex.CheckReport) error {
	var b strings.Builder
	fmt.Fprintf(&b, "file:         %s (%d trie bytes)\n", name, rep.Size)
	fmt.Fprintf(&b, "partitioner:  %s\n", partitionerLine(opts, rep))
	fmt.Fprintf(&b, "entries:      %d\n", rep.Entries)
	fmt.Fprintf(&b, "nodes:        %d\n", rep.Nodes)
	for t := range 16 {
		name := trie.TypeName(uint8(t))
		if n := rep.NodesByType[name]; n > 0 {
			fmt.Fprintf(&b, "  %-20s %d\n", name, n)
		}
	}
	fmt.Fprintf(&b, "padding:      %d bytes\n", rep.PaddingBytes)
	fmt.Fprintf(&b, "prefix bytes: %s\n", histogram(rep.Depth))
	fmt.Fprintf(&b, "pages/lookup: %s\n", histogram(rep.Pages))
	for _, p := range rep.Problems {
		fmt.Fprintf(&b, "problem: %v\n", p)
	}
	if int64(len(rep.Problems)) < rep.ProblemCount {
		fmt.Fprintf(&b, "(%d more problems counted, not shown)\n", rep.ProblemCount-int64(len(rep.Problems)))
	}
	if rep.OK() {
		fmt.Fprintf(&b, "ok: no rule broken\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// histogram prints the non-zero buckets as "value:count".
func histogram(h []int64) string {
	var parts []string
	for v, n := range h {
		if n > 0 {
			parts = append(parts, fmt.Sprintf("%d:%d", v, n))
		}
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, " ")
}

func writeCheckJSON(w io.Writer, name string, opts partitionindex.CheckOptions, rep *partitionindex.CheckReport) error {
	var fits []string
	for _, p := range rep.Partitioners {
		fits = append(fits, p.String())
	}
	out := struct {
		File         string   `json:"file"`
		OK           bool     `json:"ok"`
		Partitioner  string   `json:"partitioner"`
		Detected     bool     `json:"partitioner_detected"`
		Partitioners []string `json:"partitioners_fitting_footer"`
		*partitionindex.CheckReport
	}{name, rep.OK(), rep.Partitioner.String(), opts.DetectPartitioner, fits, rep}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// verifyDeep is bti verify --deep: the structural check, then (with --in)
// the comparison with the keys. Both count towards exit status 1.
func verifyDeep(index, in, part string, cf checkFlags, stdout, stderr io.Writer) error {
	if index == "" {
		return usagef("--index is required")
	}
	opts, err := cf.options()
	if err != nil {
		return err
	}
	ix, err := openForCheck(index, part, &opts)
	if err != nil {
		return err
	}
	p := ix.Partitioner()
	defer func() { _ = ix.Close() }() // ix may be reopened below
	rep, err := partitionindex.Check(ix, opts)
	if err != nil {
		return fmt.Errorf("%s: %w", index, err)
	}
	if err := writeCheckText(stdout, index, opts, rep); err != nil {
		return err
	}
	problems := rep.ProblemCount
	if in != "" {
		if rep.Partitioner != p {
			// Detected: reopen under it, lookups decorate keys with it.
			_ = ix.Close()
			if ix, err = partitionindex.OpenUnchecked(index, rep.Partitioner); err != nil {
				return err
			}
			p = rep.Partitioner
		}
		ks, err := loadKeys(in, p, newProgress(stderr))
		if err != nil {
			return err
		}
		n, err := verifyIndex(ix, ks, stderr)
		if err != nil {
			if problems == 0 {
				return fmt.Errorf("%s: %w", index, err)
			}
			fmt.Fprintf(stderr, "bti verify: %s: %v\n", index, err)
			n++
		}
		if n == 0 {
			fmt.Fprintf(stdout, "ok: %s matches %s: %d keys found at their positions, footer and scan order agree\n", index, in, len(ks.keys))
		}
		problems += int64(n)
	}
	if problems > 0 {
		return &checkFailed{fmt.Sprintf("FAILED: %s: %d problems", index, problems)}
	}
	return nil
}

// openForCheck opens the index for bti check and verify --deep. Unlike the
// lookup commands, a partitioner under which the footer's keys do not
// resolve is not refused: that is one of the problems Check reports. With
// auto, Check's footer rule picks the partitioner (opts.DetectPartitioner)
// and the index is opened under Cassandra's default until it has.
func openForCheck(path, part string, opts *partitionindex.CheckOptions) (*partitionindex.Index, error) {
	if err := checkPartitionerFlag(part); err != nil {
		return nil, err
	}
	p := partitioner.Murmur3
	if part == partitionerAuto {
		opts.DetectPartitioner = true
	} else {
		p, _ = parsePartitioner(part)
	}
	return partitionindex.OpenUnchecked(path, p)
}
