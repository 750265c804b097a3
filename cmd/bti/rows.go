package main

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/bti-go/bti/bytecomparable"
	"github.com/bti-go/bti/internal/rowstsv"
	"github.com/bti-go/bti/rowindex"
	"github.com/bti-go/bti/tableindex"
)

const rowsUsage = `usage: bti rows <build|get|dump|bench> [flags]

Writes and reads the row index of a BTI sstable (Rows.db):

  build  build Rows.db (and optionally Partitions.db) from rows.tsv
  get    find the index block that may hold each clustering
  dump   list every partition entry and its blocks
  bench  JMH-style benchmarks of building and lookups

rows.tsv is the format of the golden row-index cases (see
../shared/tools/genrows.py): '# types:' and '# reversed:' lines, then per
partition "partition KEYHEX DATA_POS END_POS DELETION" and one
"FIRST LAST OFFSET OPEN_DELETION" line per index block.

flags: each subcommand's own; "bti rows build -h" (get, dump) lists them.
`

func runRows(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return usagef("rows needs a subcommand: build, get, dump or bench")
	}
	switch args[0] {
	case "build":
		return runRowsBuild(args[1:], stdout)
	case "get":
		return runRowsGet(args[1:], stdout)
	case "dump":
		return runRowsDump(args[1:], stdout)
	case "bench":
		return runRowsBench(args[1:], stdout, stderr)
	case "-h", "-help", "--help", "help":
		fmt.Fprint(stdout, rowsUsage)
		return errHelp
	}
	return usagef("unknown rows subcommand %q: want build, get, dump or bench", args[0])
}

const rowsBuildUsage = `usage: bti rows build --in rows.tsv --out Rows.db [--result RESULT]
                      [--partitions Partitions.db --partitioner P] [--path scratch|reference]

Builds Rows.db as Cassandra's table writer does: a row index and entry for
every partition with more than one index block. --result writes, per
partition, the value Partitions.db holds for its key (the Rows.db entry
position, or ^dataPosition), the row index root and the block count, in the
golden RESULT format. --partitions also writes the partition index; its keys
must then be in the partitioner's order.
`

func runRowsBuild(args []string, stdout io.Writer) error {
	fs := newFlags("rows build", rowsBuildUsage)
	in := fs.String("in", "", "rows.tsv to read (required)")
	out := fs.String("out", "", "Rows.db to write (required)")
	resultPath := fs.String("result", "", "RESULT file to write")
	partsPath := fs.String("partitions", "", "Partitions.db to write as well")
	part := addPartitionerFlag(fs, false)
	pathName := fs.String("path", "scratch", "writer path: scratch or reference (same bytes)")
	if err := parseCommand(fs, args, stdout, "in", "out"); err != nil {
		return err
	}
	path, err := rowindex.ParsePath(*pathName)
	if err != nil {
		return usagef("--path %q: want scratch or reference", *pathName)
	}
	p, err := parsePartitioner(*part)
	if err != nil {
		return err
	}
	// Every output is opened before the work, so a refused one (a
	// directory, the input itself, two flags naming one file) fails before
	// anything is built; each is committed only after the build succeeded.
	outs, err := createOutputs(stdout, []string{*in}, *out, *partsPath, *resultPath)
	if err != nil {
		return err
	}
	for _, o := range outs {
		if o != nil {
			defer o.abort()
		}
	}
	rowsOut, partsOut, resultOut := outs[0], outs[1], outs[2]

	f, err := rowstsv.ReadFile(*in)
	if err != nil {
		return fmt.Errorf("%s: %w", *in, err)
	}
	var rows, parts bytes.Buffer
	lines, err := buildRows(f, &rows, &parts, partsOut != nil, tableindex.Options{Partitioner: p, Columns: f.Columns, Path: path})
	if err != nil {
		return fmt.Errorf("%s: %w", *in, err)
	}
	if err := writeAndCommit(rowsOut, rows.Bytes()); err != nil {
		return err
	}
	if partsOut != nil {
		if err := writeAndCommit(partsOut, parts.Bytes()); err != nil {
			return err
		}
	}
	if resultOut != nil {
		var rb bytes.Buffer
		if err := rowstsv.WriteResult(&rb, lines); err != nil {
			return err
		}
		if err := writeAndCommit(resultOut, rb.Bytes()); err != nil {
			return err
		}
	}
	return nil
}

// buildRows writes f's Rows.db to rows and, withParts, its Partitions.db
// to parts (only then must the keys be in partitioner order).
func buildRows(f *rowstsv.File, rows, parts io.Writer, withParts bool, opts tableindex.Options) ([]rowstsv.ResultLine, error) {
	lines := make([]rowstsv.ResultLine, 0, len(f.Partitions))
	var tw *tableindex.Writer
	var rw *rowindex.Writer
	if withParts {
		tw = tableindex.NewWriter(parts, rows, opts)
	} else {
		rw = rowindex.NewWriter(rows, rowindex.Options{Columns: opts.Columns, Path: opts.Path})
	}
	for _, pt := range f.Partitions {
		res, err := buildPartition(tw, rw, pt)
		if err != nil {
			return nil, fmt.Errorf("partition %s (line %d): %w", shortHex(pt.Key), pt.Line, err)
		}
		lines = append(lines, rowstsv.ResultLine{Key: pt.Key, Value: res.Value, Root: res.Root, Blocks: res.Blocks})
	}
	if withParts {
		_, err := tw.Complete()
		return lines, err
	}
	return lines, rw.Flush()
}

func buildPartition(tw *tableindex.Writer, rw *rowindex.Writer, pt rowstsv.Partition) (rowindex.Result, error) {
	if rw != nil {
		for _, b := range pt.Blocks {
			if err := rw.Add(b); err != nil {
				return rowindex.Result{}, err
			}
		}
		return rw.FinishPartition(pt.Key, pt.DataPosition, pt.EndPosition, pt.Deletion)
	}
	if err := tw.StartPartition(pt.Key, pt.DataPosition, pt.Deletion); err != nil {
		return rowindex.Result{}, err
	}
	for _, b := range pt.Blocks {
		if err := tw.AddBlock(b); err != nil {
			return rowindex.Result{}, err
		}
	}
	return tw.FinishPartition(pt.EndPosition)
}

const rowsGetUsage = `usage: bti rows get --rows Rows.db (--entry POS | --partitions Partitions.db --partitioner P --key KEYHEX)
                    --types T1,T2 [--reversed I,J] [--kind K] CLUSTERING...

Finds, in the row index of the partition whose entry is at POS (the value
Partitions.db holds for its key; with --partitions and --key it is looked up
there and confirmed against the key stored in the entry, as Cassandra does),
the block that may hold each clustering
(Cassandra's separatorFloor) and prints "CLUSTERING<TAB>OFFSET<TAB>OPEN_DELETION".
A clustering is its components' serialized values in hex joined by ':'.
Types: int, bigint, text, blob, uuid, timeuuid (and rows.tsv's int32, utf8);
--reversed lists the DESC columns by index. --kind looks up bounds instead
of clusterings (a bound may give fewer components): incl-start, excl-start,
incl-end or excl-end. A clustering past the last
block prints "past the end" with the partition's end offset; exit status 1
if any did.
`

func runRowsGet(args []string, stdout io.Writer) (err error) {
	fs := newFlags("rows get", rowsGetUsage)
	index := fs.String("rows", "", "Rows.db to read (required)")
	renamedIndexFlag(fs)
	entry := fs.Int64("entry", -1, "position of the partition's entry")
	partsPath := fs.String("partitions", "", "Partitions.db to find --key's entry in")
	part := addPartitionerFlag(fs, true)
	keyHex := fs.String("key", "", "partition key (hex) to look up in --partitions")
	types := fs.String("types", "", "clustering column types, comma-separated (required)")
	reversed := fs.String("reversed", "-", "indexes of DESC columns, comma-separated, or -")
	kindName := fs.String("kind", "clustering", "what the arguments are: clustering, incl-start, excl-start, incl-end or excl-end")
	keys, err := parseFlags(fs, args, stdout)
	if err != nil {
		return err
	}
	if err := required(fs, "rows", "types"); err != nil {
		return err
	}
	if (*entry >= 0) == (*partsPath != "") {
		return usagef("give either --entry (a position >= 0) or --partitions with --key")
	}
	if (*partsPath != "") != (*keyHex != "") {
		return usagef("--partitions and --key go together")
	}
	if len(keys) == 0 {
		return usagef("no clusterings to look up")
	}
	cols, err := parseColumns(*types, *reversed)
	if err != nil {
		return err
	}
	kinds := map[string]bytecomparable.PrefixKind{
		"clustering": bytecomparable.Clustering, "incl-start": bytecomparable.InclusiveStart,
		"excl-start": bytecomparable.ExclusiveStart, "incl-end": bytecomparable.InclusiveEnd, "excl-end": bytecomparable.ExclusiveEnd,
	}
	kind, ok := kinds[*kindName]
	if !ok {
		return usagef("--kind %q: want clustering, incl-start, excl-start, incl-end or excl-end", *kindName)
	}
	clusterings := make([][][]byte, len(keys))
	for i, k := range keys {
		if clusterings[i], err = rowstsv.ParseClustering(k); err != nil {
			return usagef("clustering argument %d %q: %v", i+1, k, err)
		}
	}
	data, unmap, err := mapFile(*index)
	if err != nil {
		return err
	}
	defer unmapAfterSuccess(&err, unmap)
	if *partsPath != "" {
		if *entry, err = findRowEntry(data, *partsPath, *part, *keyHex); err != nil {
			return err
		}
	}
	p, err := rowindex.OpenPartition(data, *entry, cols)
	if err != nil {
		return fmt.Errorf("%s: %w", *index, err)
	}
	r := p.NewReader()
	w := bufio.NewWriter(stdout)
	past := 0
	for i, c := range clusterings {
		info, ok, err := r.Floor(c, kind)
		if err != nil {
			_ = w.Flush()
			return fmt.Errorf("clustering argument %d %q: %w", i+1, keys[i], err)
		}
		switch {
		case !ok:
			fmt.Fprintf(w, "%s\tnot found\n", keys[i])
			past++
		case info.End:
			fmt.Fprintf(w, "%s\tpast the end\t%d\n", keys[i], info.Offset)
			past++
		default:
			fmt.Fprintf(w, "%s\t%d\t%s\n", keys[i], info.Offset, info.OpenDeletion)
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if past > 0 {
		return &checkFailed{fmt.Sprintf("%d of %d clusterings lie past the last block", past, len(keys))}
	}
	return nil
}

// findRowEntry looks keyHex up in the partition index at partsPath and
// returns its Rows.db entry position after checking that the entry holds
// that key (a partition index hit is only a candidate). A key without a
// row index, or not in the index, is a failed check (exit 1).
func findRowEntry(rows []byte, partsPath, partName, keyHex string) (int64, error) {
	key, err := hex.DecodeString(keyHex)
	if err != nil {
		return -1, usagef("--key %q is not hex: %v", keyHex, err)
	}
	ix, _, err := openIndex(partsPath, partName)
	if err != nil {
		return -1, err
	}
	p := ix.Partitioner()
	defer ix.Close()
	rd, err := ix.OpenReader()
	if err != nil {
		return -1, err
	}
	defer rd.Close()
	decorated := p.Decorate(key)
	pos, ok, err := rd.Get(&decorated)
	if err != nil {
		return -1, fmt.Errorf("%s: %w", partsPath, err)
	}
	if !ok {
		return -1, &checkFailed{fmt.Sprintf("key %s not found in %s", shortHex(key), partsPath)}
	}
	if pos < 0 {
		return -1, &checkFailed{fmt.Sprintf("key %s has no row index: one block, at Data.db position %d", shortHex(key), ^pos)}
	}
	e, err := rowindex.ReadEntry(rows, pos)
	if err != nil {
		return -1, err
	}
	if !bytes.Equal(e.Key, key) {
		return -1, &checkFailed{fmt.Sprintf("key %s not found: the candidate entry at %d is for key %s", shortHex(key), pos, shortHex(e.Key))}
	}
	return pos, nil
}

// parseColumns parses --types and --reversed.
func parseColumns(types, reversed string) ([]bytecomparable.Column, error) {
	var cols []bytecomparable.Column
	for _, name := range strings.Split(types, ",") {
		t, err := bytecomparable.ParseCQLType(strings.TrimSpace(name))
		if err != nil {
			return nil, usagef("--types: %v", err)
		}
		cols = append(cols, bytecomparable.Column{Type: t})
	}
	if reversed != "-" && reversed != "" {
		for _, s := range strings.Split(reversed, ",") {
			i, err := strconv.Atoi(strings.TrimSpace(s))
			if err != nil || i < 0 || i >= len(cols) {
				return nil, usagef("--reversed %q: want indexes of the %d columns", reversed, len(cols))
			}
			cols[i].Desc = true
		}
	}
	return cols, nil
}

const rowsDumpUsage = `usage: bti rows dump --rows Rows.db (--entry POS[,POS...] | --partitions Partitions.db --partitioner P) [--nodes]

Checks and lists the row index entries of Rows.db: for each entry (from
--entry, or every non-negative value of a partition index) its key, data
position, root, block count and deletion, then each block's offset and open
deletion and the end offset; with --nodes also every node of its trie (as
bti dump lists them: the separators are the transition bytes on the path to
each payload node). A structural error (exit 2) names its offset; bti check
--rows audits the whole file.
`

func runRowsDump(args []string, stdout io.Writer) (err error) {
	fs := newFlags("rows dump", rowsDumpUsage)
	index := fs.String("rows", "", "Rows.db to read (required)")
	renamedIndexFlag(fs)
	entries := fs.String("entry", "", "entry positions, comma-separated")
	partsPath := fs.String("partitions", "", "Partitions.db whose values locate the entries")
	part := addPartitionerFlag(fs, true)
	nodes := fs.Bool("nodes", false, "also list every node of each trie")
	err = parseCommand(fs, args, stdout, "rows")
	if err != nil {
		return err
	}
	if (*entries == "") == (*partsPath == "") {
		return usagef("give exactly one of --entry and --partitions")
	}
	var positions []int64
	if *entries != "" {
		for _, s := range strings.Split(*entries, ",") {
			v, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
			if err != nil || v < 0 {
				return usagef("--entry %q: want positions >= 0", s)
			}
			positions = append(positions, v)
		}
	} else {
		if positions, err = rowEntryPositions(*partsPath, *part); err != nil {
			return err
		}
	}
	data, unmap, err := mapFile(*index)
	if err != nil {
		return err
	}
	defer unmapAfterSuccess(&err, unmap)
	w := bufio.NewWriter(stdout)
	err = rowindex.Walk(data, positions, func(e rowindex.Entry, blocks []rowindex.IndexInfo) error {
		fmt.Fprintf(w, "entry %d key %x data %d root %d blocks %d deletion %s\n", e.Position, e.Key, e.DataPosition, e.Root, e.Blocks, e.Deletion)
		for i, b := range blocks {
			if b.End {
				fmt.Fprintf(w, "  end    offset %d\n", b.Offset)
				continue
			}
			fmt.Fprintf(w, "  block %d offset %d open %s\n", i, b.Offset, b.OpenDeletion)
		}
		if !*nodes {
			return nil
		}
		// Walk has checked this trie within its part of the file.
		p, err := rowindex.OpenPartition(data, e.Position, nil)
		if err != nil {
			return err
		}
		return p.Dump(w)
	})
	if ferr := w.Flush(); err == nil {
		err = ferr
	}
	if err != nil {
		return fmt.Errorf("%s: %w", *index, err)
	}
	return nil
}

// rowEntryPositions lists the non-negative values of a partition index.
func rowEntryPositions(path, partName string) ([]int64, error) {
	ix, _, err := openIndex(path, partName)
	if err != nil {
		return nil, err
	}
	defer ix.Close()
	rd, err := ix.OpenReader()
	if err != nil {
		return nil, err
	}
	defer rd.Close()
	var out []int64
	it := rd.Scan(nil, nil)
	for it.Next() {
		if pos := it.Pos(); pos >= 0 {
			out = append(out, pos)
		}
	}
	if err := it.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return out, nil
}
