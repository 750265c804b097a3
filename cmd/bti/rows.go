package main

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/bti-go/bti/audit"
	"github.com/bti-go/bti/bytecomparable"
	"github.com/bti-go/bti/internal/buildpath"
	"github.com/bti-go/bti/internal/refrows"
	"github.com/bti-go/bti/internal/rowstsv"
	"github.com/bti-go/bti/internal/workload"
	"github.com/bti-go/bti/partitioner"
	"github.com/bti-go/bti/partitionindex"
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
	path, err := buildpath.Parse(*pathName)
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
	lines, err := buildRows(f, &rows, &parts, partsOut != nil, path, p)
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

// buildRows writes f's Rows.db to rows with the writer of path and,
// withParts, its Partitions.db to parts (only then must the keys be in
// partitioner order): on the scratch path as tableindex writes it, whose
// Rows.db half goes nowhere (it is the same file), and on the reference
// path (tableindex drives the production writers only) with the reference
// partition builder, fed the row writer's positions as tableindex feeds
// its builder.
func buildRows(f *rowstsv.File, rows, parts io.Writer, withParts bool, path buildpath.Path, p partitioner.Partitioner) ([]rowstsv.ResultLine, error) {
	lines := make([]rowstsv.ResultLine, 0, len(f.Partitions))
	var tw *tableindex.Writer
	var pw *workload.PathBuilder
	switch {
	case withParts && path == buildpath.Reference:
		pw = workload.NewPathBuilder(parts, partitionindex.Options{Partitioner: p}, path)
	case withParts:
		tw = tableindex.NewWriter(parts, io.Discard, tableindex.Options{Partitioner: p, Columns: f.Columns})
	}
	rw := refrows.New(path, rows, rowindex.Options{Columns: f.Columns})
	for _, pt := range f.Partitions {
		res, err := buildPartition(rw, pt)
		switch {
		case err != nil:
		case tw != nil:
			err = addTablePartition(tw, pt)
		case pw != nil:
			key := p.Decorate(pt.Key)
			err = pw.Add(&key, res.Value)
		}
		if err != nil {
			return nil, fmt.Errorf("partition %s (line %d): %w", shortHex(pt.Key), pt.Line, err)
		}
		lines = append(lines, rowstsv.ResultLine{Key: pt.Key, Value: res.Value, Root: res.Root, Blocks: res.Blocks})
	}
	var err error
	switch {
	case tw != nil:
		_, err = tw.Complete()
	case pw != nil:
		_, err = pw.Complete()
	}
	if err != nil {
		return lines, err
	}
	return lines, rw.Flush()
}

// buildPartition adds a partition's blocks to rw and finishes it.
func buildPartition(rw refrows.IndexWriter, pt rowstsv.Partition) (rowindex.Result, error) {
	for i := range pt.Blocks {
		if err := rw.Add(&pt.Blocks[i]); err != nil {
			return rowindex.Result{}, err
		}
	}
	return rw.FinishPartition(pt.Key, pt.DataPosition, pt.EndPosition, pt.Deletion)
}

// addTablePartition adds a partition to the table writer, for its
// Partitions.db.
func addTablePartition(tw *tableindex.Writer, pt rowstsv.Partition) error {
	if err := tw.StartPartition(pt.Key, pt.DataPosition, pt.Deletion); err != nil {
		return err
	}
	for _, b := range pt.Blocks {
		if err := tw.AddBlock(b); err != nil {
			return err
		}
	}
	_, err := tw.FinishPartition(pt.EndPosition)
	return err
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

const rowsDumpUsage = `usage: bti rows dump --rows Rows.db (--entry POS[,POS...] | --partitions Partitions.db --partitioner P)
                     [--types T1,T2 [--reversed I,J]] [--nodes]

Checks and lists the row index entries of Rows.db: for each entry (from
--entry, or every non-negative value of a partition index) its key, data
position, root, block count and deletion, then each block's offset and open
deletion and the end offset; with --nodes also every node of its trie (as
bti dump lists them: the separators are the transition bytes on the path to
each payload node). A structural error (exit 2) names its offset; bti check
--rows audits the whole file.

With --types (the clustering column types, as bti rows get takes them, and
--reversed for the DESC ones) each block line also shows its first and last
clustering decoded, as far as the index knows them: Rows.db stores no
clustering, only a separator per block, so the line reads
"first >= S last < T", S the block's separator (a prefix of its first
clustering's encoding, the partition's start for block 0) and T the next
one (above its last clustering; for the last block the partition's end key,
its last clustering nudged up). Each is decoded component by component:
int and bigint in decimal, text quoted, blob and uuids in hex; a component
the separator cuts short shows the encoded bytes it keeps, in hex, after
"~". Memory: the separators of one partition at a time.
`

func runRowsDump(args []string, stdout io.Writer) (err error) {
	fs := newFlags("rows dump", rowsDumpUsage)
	index := fs.String("rows", "", "Rows.db to read (required)")
	renamedIndexFlag(fs)
	entries := fs.String("entry", "", "entry positions, comma-separated")
	partsPath := fs.String("partitions", "", "Partitions.db whose values locate the entries")
	part := addPartitionerFlag(fs, true)
	nodes := fs.Bool("nodes", false, "also list every node of each trie")
	types := fs.String("types", "", "clustering column types, comma-separated: show each block's clustering bounds decoded")
	reversed := fs.String("reversed", "-", "with --types: indexes of DESC columns, comma-separated, or -")
	err = parseCommand(fs, args, stdout, "rows")
	if err != nil {
		return err
	}
	if (*entries == "") == (*partsPath == "") {
		return usagef("give exactly one of --entry and --partitions")
	}
	var cols []bytecomparable.Column
	if *types != "" {
		if cols, err = parseColumns(*types, *reversed); err != nil {
			return err
		}
	} else if *reversed != "-" {
		return usagef("--reversed goes with --types")
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
	var seps []audit.RowBlock
	err = rowindex.Walk(data, positions, func(e rowindex.Entry, blocks []rowindex.IndexInfo) error {
		fmt.Fprintf(w, "entry %d key %x data %d root %d blocks %d deletion %s\n", e.Position, e.Key, e.DataPosition, e.Root, e.Blocks, e.Deletion)
		var p *rowindex.Partition
		if cols != nil || *nodes {
			// Walk has checked this trie within its part of the file.
			if p, err = rowindex.OpenPartition(data, e.Position, cols); err != nil {
				return err
			}
		}
		if cols != nil {
			if seps, err = audit.RowBlocks(seps[:0], p); err != nil {
				return err
			}
			if len(seps) != len(blocks) {
				return fmt.Errorf("entry %d: %d separators for %d blocks and the end", e.Position, len(seps), len(blocks))
			}
		}
		for i, b := range blocks {
			if b.End {
				fmt.Fprintf(w, "  end    offset %d\n", b.Offset)
				continue
			}
			fmt.Fprintf(w, "  block %d offset %d open %s", i, b.Offset, b.OpenDeletion)
			if cols != nil {
				fmt.Fprintf(w, " first >= %s last < %s", describeSeparator(cols, seps[i].Separator), describeSeparator(cols, seps[i+1].Separator))
			}
			fmt.Fprintln(w)
		}
		if !*nodes {
			return nil
		}
		return audit.DumpTrie(w, p.Trie())
	})
	if ferr := w.Flush(); err == nil {
		err = ferr
	}
	if err != nil {
		return fmt.Errorf("%s: %w", *index, err)
	}
	return nil
}

// describeSeparator decodes a row index separator under cols: the
// components it holds whole, in parentheses (decimal for int and bigint,
// quoted text, hex otherwise), then "~" and the hex of a component it cuts
// short; the empty separator is the partition's start. A separator is a
// prefix of a clustering's byte-comparable encoding, cut one byte past the
// previous block's last clustering (and that byte may lie between the two),
// so a whole component is a bound of the block's first clustering's.
func describeSeparator(cols []bytecomparable.Column, sep []byte) string {
	if len(sep) == 0 {
		return "(start)"
	}
	var parts []string
	pos := 0
	for pos < len(sep) {
		b := sep[pos]
		switch {
		case b == bytecomparable.Terminator || b == bytecomparable.LtNextComponent || b == bytecomparable.GtNextComponent:
			pos = len(sep) // the clustering or bound ends here
			continue
		case len(parts) == len(cols):
			parts = append(parts, "~"+hex.EncodeToString(sep[pos:]))
			pos = len(sep)
			continue
		case b == bytecomparable.NextComponentEmpty || b == bytecomparable.NextComponentEmptyReversed:
			parts = append(parts, "empty")
			pos++
			continue
		}
		c := cols[len(parts)]
		v, n, err := bytecomparable.DecodeValue(nil, c, sep[pos+1:])
		if b != bytecomparable.NextComponent || err != nil {
			parts = append(parts, describeCut(c, sep[pos:]))
			break
		}
		parts = append(parts, formatValue(c.Type, v))
		pos += 1 + n
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// describeCut shows a component the separator cuts short (enc starts with
// its separator byte): a text or blob value's bytes so far (quoted text,
// hex blob) followed by "…", where they hold no escaped zero; otherwise
// "~" and the hex of the encoded bytes kept after the separator byte.
func describeCut(c bytecomparable.Column, enc []byte) string {
	kept := enc
	if enc[0] == bytecomparable.NextComponent {
		kept = enc[1:]
	}
	if c.Type == bytecomparable.Text || c.Type == bytecomparable.Blob {
		raw := bytes.Clone(kept)
		if c.Desc {
			for i := range raw {
				raw[i] = ^raw[i] // DESC components are stored inverted
			}
		}
		if bytes.IndexByte(raw, 0) < 0 {
			if c.Type == bytecomparable.Text {
				return strconv.Quote(string(raw)) + "…"
			}
			return hex.EncodeToString(raw) + "…"
		}
	}
	return "~" + hex.EncodeToString(kept)
}

// formatValue shows a serialized clustering value of type t.
func formatValue(t bytecomparable.CQLType, v []byte) string {
	switch {
	case t == bytecomparable.Int && len(v) == 4:
		return strconv.FormatInt(int64(int32(binary.BigEndian.Uint32(v))), 10)
	case t == bytecomparable.BigInt && len(v) == 8:
		return strconv.FormatInt(int64(binary.BigEndian.Uint64(v)), 10)
	case t == bytecomparable.Text:
		return strconv.Quote(string(v))
	}
	return hex.EncodeToString(v)
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
