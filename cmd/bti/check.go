package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/bti-go/bti/audit"
	"github.com/bti-go/bti/partitioner"
	"github.com/bti-go/bti/partitionindex"
	"github.com/bti-go/bti/trie"
)

const checkUsage = `usage: bti check --partitions Partitions.db [--rows Rows.db] [--partitioner auto|P] [--positions any|increasing] [--format text|json]

Audits Partitions.db on its own, without its keys, against the rules the
writer (ours and Cassandra's) lays files out by: footer, node types and
pointers, page boundaries and padding, reachability, prefix order and cut,
the grammar of the partitioner's key encoding,
and with --positions increasing the order of the stored positions (true of
a file written by an sstable writer; not of the synthetic golden key sets).
Prints counts per node type, the depth and pages-per-lookup histograms,
the padding and every problem found (the first --max-problems, with a
total): offset, node, rule, detail.

With --rows it then audits the Rows.db written beside it, whose partition
entries are at the index's non-negative values: each entry and its trie as
bti rows dump walks them (the trie between the previous entry and this one,
its root the empty key, its block count, increasing block offsets), each
trie byte for byte against the writer's layout of the same separators and
payloads at the same position, the key of each entry mapping back to it
through the partition index, and nothing after the last entry. Its
problems (offset, entry, rule, detail) count towards the exit status.

Memory: both files are mapped, not read into memory; the check holds its
walk's frames (bounded by the trie's depth), the problems kept
(--max-problems) and counters, whatever the file's size. Only when the scan
and the walk disagree does it run them again with two bitmaps of the file
(2 bits per byte: 2.5 GB for a 10 GB index) to name the nodes concerned. On
a terminal a status line shows the scan's bytes and the walk's nodes.

Exit status: 0 clean, 1 problems found, 2 unreadable (the footer cannot be
read, or the Rows.db file cannot).
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

func (f checkFlags) options() (audit.Options, error) {
	opts := audit.Options{PageSize: *f.pageSize, MaxProblems: *f.maxProblems}
	switch *f.positions {
	case "any":
	case "increasing":
		opts.Positions = audit.PositionsIncreasing
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

func runCheck(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("check", checkUsage)
	index := addPartitionsFlag(fs, "Partitions.db to check (required)")
	rowsPath := fs.String("rows", "", "Rows.db to check as well, against the partition index")
	part := addPartitionerFlag(fs, true)
	format := fs.String("format", "text", "text or json")
	cf := addCheckFlags(fs)
	if err := parseCommand(fs, args, stdout, "partitions"); err != nil {
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
	rep, err := checkWithProgress(ix, *index, opts, newProgress(stderr))
	if err != nil {
		return fmt.Errorf("%s: %w", *index, err)
	}
	var rows *rowsCheck
	if *rowsPath != "" {
		if rows, err = checkRowsFile(*rowsPath, *index, ix, rep, opts); err != nil {
			return err
		}
	}
	if *format == "json" {
		err = writeCheckJSON(stdout, *index, opts, rep, rows)
	} else {
		err = writeCheckText(stdout, *index, opts, rep)
		if err == nil && rows != nil {
			err = writeRowsCheckText(stdout, rows)
		}
	}
	if err != nil {
		return err
	}
	switch {
	case !rep.OK() && rows != nil && !rows.ok():
		return &checkFailed{fmt.Sprintf("FAILED: %s and %s break the writer's rules: %d and %d problems", *index, rows.path, rep.ProblemCount, rows.problemCount())}
	case !rep.OK():
		return &checkFailed{fmt.Sprintf("FAILED: %s breaks the writer's rules: %d problems", *index, rep.ProblemCount)}
	case rows != nil && !rows.ok():
		return &checkFailed{fmt.Sprintf("FAILED: %s breaks the writer's rules: %d problems", rows.path, rows.problemCount())}
	}
	return nil
}

// rowsCheck is the outcome of bti check --rows: the report, or why the
// partition index's positions could not be read (then Rows.db is not
// checked, which counts as one problem).
type rowsCheck struct {
	path     string
	rep      *audit.Report
	unusable error
}

func (r *rowsCheck) ok() bool { return r.unusable == nil && r.rep.OK() }

func (r *rowsCheck) problemCount() int64 {
	if r.unusable != nil {
		return 1
	}
	return r.rep.ProblemCount
}

// checkRowsFile checks the Rows.db at path against ix, reopened under the
// partitioner its check settled on (lookups decorate the entries' keys).
func checkRowsFile(path, index string, ix *partitionindex.Index, rep *audit.Report, opts audit.Options) (_ *rowsCheck, err error) {
	data, unmap, err := mapFile(path)
	if err != nil {
		return nil, err
	}
	defer unmapAfterSuccess(&err, unmap)
	if rep.Partitioner != ix.Partitioner() {
		rix, err := partitionindex.Open(index, partitionindex.OpenOptions{Partitioner: rep.Partitioner, SkipPartitionerCheck: true})
		if err != nil {
			return nil, err
		}
		defer rix.Close()
		ix = rix
	}
	rows := &rowsCheck{path: path}
	rows.rep, rows.unusable = audit.CheckTable(ix, data, audit.Options{PageSize: opts.PageSize, MaxProblems: opts.MaxProblems})
	return rows, nil
}

func writeRowsCheckText(w io.Writer, r *rowsCheck) error {
	var b strings.Builder
	if r.unusable != nil {
		fmt.Fprintf(&b, "rows:         %s not checked: the partition index's positions cannot be read: %v\n", r.path, r.unusable)
		_, err := io.WriteString(w, b.String())
		return err
	}
	fmt.Fprintf(&b, "rows:         %s (%d bytes)\n", r.path, r.rep.Size)
	fmt.Fprintf(&b, "row entries:  %d\n", r.rep.Entries)
	fmt.Fprintf(&b, "row blocks:   %d\n", r.rep.Blocks)
	for _, p := range r.rep.Problems {
		fmt.Fprintf(&b, "rows problem: %v\n", p)
	}
	if int64(len(r.rep.Problems)) < r.rep.ProblemCount {
		fmt.Fprintf(&b, "(%d more rows problems counted, not shown)\n", r.rep.ProblemCount-int64(len(r.rep.Problems)))
	}
	if r.rep.OK() {
		fmt.Fprintf(&b, "ok: %s breaks no rule\n", r.path)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// partitionerLine says which partitioner the footer's keys were checked
// under and how it was chosen.
func partitionerLine(opts audit.Options, rep *audit.Report) string {
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

func writeCheckText(w io.Writer, name string, opts audit.Options, rep *audit.Report) error {
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

// rowsCheckJSON is the "rows" object of bti check --rows --format json.
type rowsCheckJSON struct {
	File       string `json:"file"`
	OK         bool   `json:"ok"`
	NotChecked string `json:"not_checked,omitempty"`
	*audit.Report
}

func writeCheckJSON(w io.Writer, name string, opts audit.Options, rep *audit.Report, rows *rowsCheck) error {
	var fits []string
	for _, p := range rep.Partitioners {
		fits = append(fits, p.String())
	}
	var rj *rowsCheckJSON
	if rows != nil {
		rj = &rowsCheckJSON{File: rows.path, OK: rows.ok(), Report: rows.rep}
		if rows.unusable != nil {
			rj.NotChecked = rows.unusable.Error()
		}
	}
	out := struct {
		File         string   `json:"file"`
		OK           bool     `json:"ok"`
		Partitioner  string   `json:"partitioner"`
		Detected     bool     `json:"partitioner_detected"`
		Partitioners []string `json:"partitioners_fitting_footer"`
		*audit.Report
		Rows *rowsCheckJSON `json:"rows,omitempty"`
	}{name, rep.OK(), rep.Partitioner.String(), opts.DetectPartitioner, fits, rep, rj}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// verifyDeep is bti verify --deep: the structural check, then (with --in)
// the comparison with the keys. Both count towards exit status 1.
func verifyDeep(index, in, part string, cf checkFlags, stdout, stderr io.Writer) error {
	if index == "" {
		return usagef("--partitions is required")
	}
	opts, err := cf.options()
	if err != nil {
		return err
	}
	ix, err := openForCheck(index, part, &opts)
	if err != nil {
		return err
	}
	defer func() { _ = ix.Close() }() // ix may be reopened below
	rep, err := checkWithProgress(ix, index, opts, newProgress(stderr))
	if err != nil {
		return fmt.Errorf("%s: %w", index, err)
	}
	if err := writeCheckText(stdout, index, opts, rep); err != nil {
		return err
	}
	problems := rep.ProblemCount
	if in != "" {
		if rep.Partitioner != ix.Partitioner() {
			// Detected: reopen under it, lookups decorate keys with it.
			_ = ix.Close()
			if ix, err = partitionindex.Open(index, partitionindex.OpenOptions{Partitioner: rep.Partitioner, SkipPartitionerCheck: true}); err != nil {
				return err
			}
		}
		pp := &problemPrinter{w: stderr, prefix: "bti verify: "}
		keys, err := verifyStream(ix, in, newProgress(stderr), pp.report)
		n := pp.problems
		if err != nil {
			if problems == 0 && n == 0 {
				return fmt.Errorf("%s: %w", index, err)
			}
			fmt.Fprintf(stderr, "bti verify: %s: %v\n", index, err)
			n++
		}
		if n == 0 {
			fmt.Fprintf(stdout, "ok: %s matches %s: %d keys found at their positions, footer and scan order agree\n", index, in, keys)
		}
		problems += int64(n)
	}
	if problems > 0 {
		return &checkFailed{fmt.Sprintf("FAILED: %s: %d problems", index, problems)}
	}
	return nil
}

// checkWithProgress runs audit.CheckPartitions, showing on a terminal how
// far its scan and walk are (a few times a second at most).
func checkWithProgress(ix *partitionindex.Index, name string, opts audit.Options, prog *progress) (*audit.Report, error) {
	if prog.enabled() {
		opts.Progress = func(phase string, done, total int64) {
			unit := "bytes"
			if phase == "walk" {
				unit = "nodes"
			}
			prog.update("checking %s: %s %d of %d %s (%.0f%%)", name, phase, done, total, unit, 100*float64(done)/float64(max(total, 1)))
		}
	}
	defer prog.done()
	return audit.CheckPartitions(ix, opts)
}

// openForCheck opens the index for bti check and verify --deep. Unlike the
// lookup commands, a partitioner under which the footer's keys do not
// resolve is not refused: that is one of the problems CheckPartitions
// reports. With auto, its footer rule picks the partitioner
// (opts.DetectPartitioner) and the index is opened under Cassandra's
// default until it has.
func openForCheck(path, part string, opts *audit.Options) (*partitionindex.Index, error) {
	if err := checkPartitionerFlag(part); err != nil {
		return nil, err
	}
	p := partitioner.Murmur3
	if part == partitionerAuto {
		opts.DetectPartitioner = true
	} else {
		p, _ = parsePartitioner(part)
	}
	return partitionindex.Open(path, partitionindex.OpenOptions{Partitioner: p, SkipPartitionerCheck: true})
}
