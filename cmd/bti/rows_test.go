package main

import (
	"encoding/json"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bti-go/bti/internal/golden"
	"github.com/bti-go/bti/internal/rowstsv"
)

const smallRows = `# types: int32,utf8
# reversed: 1
partition	6b31	100	5000	-
00000001:61	00000002:62	10	-
00000003:63	00000003:61	2000	5,6
00000004:	00000005:7a	3000	-
`

// buildSmallRows runs bti rows build on smallRows in a fresh directory and
// returns the Rows.db path and the position of its one partition's entry
// (read from the RESULT it wrote).
func buildSmallRows(t *testing.T) (rowsDB string, entry int64) {
	t.Helper()
	dir := t.TempDir()
	in := filepath.Join(dir, "rows.tsv")
	writeFile(t, in, smallRows)
	rowsDB, res := filepath.Join(dir, "Rows.db"), filepath.Join(dir, "RESULT")
	requireCode(t, 0, bti("rows", "build", "--in", in, "--out", rowsDB, "--result", res))
	lines, err := rowstsv.ReadResult([]byte(readFile(t, res)))
	require.NoError(t, err)
	require.Len(t, lines, 1)
	return rowsDB, lines[0].Value
}

// TestRowsDumpTypes: with --types each block line shows the clustering
// bounds its separators give, decoded. smallRows' blocks end at (2, b) and
// (3, a) and start at (3, c) and (4, empty): the separators cut after the int
// component, at 3 and 4 (the previous last's int plus one); the end key is
// the last clustering (5, z) nudged to 6 at that depth.
func TestRowsDumpTypes(t *testing.T) {
	out, entryPos := buildSmallRows(t)
	entry := strconv.FormatInt(entryPos, 10)
	r := bti("rows", "dump", "--rows", out, "--entry", entry, "--types", "int,text", "--reversed", "1")
	requireCode(t, 0, r)
	assert.Equal(t, "entry "+entry+" key 6b31 data 100 root 35 blocks 3 deletion -\n"+
		"  block 0 offset 10 open - first >= (start) last < (3)\n"+
		"  block 1 offset 2000 open 5,6 first >= (3) last < (4)\n"+
		"  block 2 offset 3000 open - first >= (4) last < (6)\n"+
		"  end    offset 5000\n", r.stdout)
	// --nodes still follows the blocks.
	r = bti("rows", "dump", "--rows", out, "--entry", entry, "--types", "int32,utf8", "--reversed", "1", "--nodes")
	requireCode(t, 0, r)
	assert.Contains(t, r.stdout, "last < (6)\n  end    offset 5000\n@")

	// A separator cut inside a text component: the golden composite case's
	// first blocks end at (-50, "name-2110yyy") and (-50, "name-4449yyy")
	// and start at (-50, "name-2880yyyy") and (-50, "name-4783yy"): the
	// separators keep "name-22" and "name-45", each between the two.
	c := golden.RowsCaseNamed(t, "int32-utf8-500")
	pos := strings.Fields(strings.Split(string(c.Result(t)), "\n")[1])[1]
	rows := filepath.Join(filepath.Dir(out), "golden-Rows.db")
	writeFile(t, rows, string(c.RowsDB(t)))
	r = bti("rows", "dump", "--rows", rows, "--entry", pos, "--types", "int32,utf8")
	requireCode(t, 0, r)
	assert.Contains(t, r.stdout, "  block 0 offset 7 open - first >= (start) last < (-50, \"name-22\"…)\n"+
		"  block 1 offset 20150 open - first >= (-50, \"name-22\"…) last < (-50, \"name-45\"…)\n")
	assert.Equal(t, 501, strings.Count(r.stdout, "first >= ")+1, "every block but the end has its bounds")

	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"rows", "dump", "--rows", out, "--entry", entry, "--reversed", "1"}, "--reversed goes with --types"},
		{[]string{"rows", "dump", "--rows", out, "--entry", entry, "--types", "float"}, "unknown clustering type"},
		{[]string{"rows", "dump", "--rows", out, "--entry", entry, "--types", "int", "--reversed", "2"}, "--reversed"},
	} {
		r := bti(tc.args...)
		requireCode(t, 2, r, tc.args)
		assert.Contains(t, r.stderr, tc.msg)
	}
}

func TestRowsGetAndErrors(t *testing.T) {
	out, entry := buildSmallRows(t)
	dir := filepath.Dir(out)
	in := filepath.Join(dir, "rows.tsv") // smallRows
	entryArg := strconv.FormatInt(entry, 10)
	r := bti("rows", "dump", "--rows", out, "--entry", "0")
	requireCode(t, 2, r)
	assert.Contains(t, r.stderr, "partition entry at 0")
	requireCode(t, 0, bti("rows", "dump", "--rows", out, "--entry", entryArg))
	r = bti("rows", "dump", "--rows", out, "--entry", entryArg, "--nodes")
	requireCode(t, 0, r)
	assert.Contains(t, r.stdout, "  end    offset 5000\n@")         // the nodes follow the blocks
	assert.Contains(t, r.stdout, "40 -> @")                         // the first separator byte
	assert.Equal(t, 4, strings.Count(r.stdout, "flags="), r.stdout) // three blocks and the end
	r = bti("rows", "get", "--rows", out, "--entry", strconv.FormatInt(entry, 10), "--types", "int,text", "--reversed", "1",
		"00000001:61", "00000003:62", "00000003:61", "00000004:", "00000009:")
	requireCode(t, 1, r)
	assert.Equal(t, "00000001:61\t10\t-\n00000003:62\t2000\t5,6\n00000003:61\t2000\t5,6\n00000004:\t3000\t-\n00000009:\tpast the end\t5000\n", r.stdout)
	assert.Contains(t, r.stderr, "1 of 5 clusterings lie past the last block")

	// Bounds on the first component: the rows from (3, *) on start in block 1
	// (block 0 ends at (2, b)); those up to (3, *) end in block 1, up to
	// (4, *) in block 2.
	r = bti("rows", "get", "--rows", out, "--entry", entryArg, "--types", "int,text", "--reversed", "1", "--kind", "incl-start", "00000003")
	requireCode(t, 0, r)
	assert.Equal(t, "00000003\t2000\t5,6\n", r.stdout)
	r = bti("rows", "get", "--rows", out, "--entry", entryArg, "--types", "int,text", "--reversed", "1", "--kind", "incl-end", "00000003", "00000004")
	requireCode(t, 0, r)
	assert.Equal(t, "00000003\t2000\t5,6\n00000004\t3000\t-\n", r.stdout)
	requireCode(t, 2, bti("rows", "get", "--rows", out, "--entry", entryArg, "--types", "int", "--kind", "bound", "00"))

	// By key, through a partition index written beside Rows.db.
	parts := filepath.Join(dir, "Partitions.db")
	requireCode(t, 0, bti("rows", "build", "--in", in, "--out", out, "--partitions", parts, "--partitioner", "byteordered"))
	byKey := func(key string) result {
		return bti("rows", "get", "--rows", out, "--partitions", parts, "--partitioner", "byteordered", "--key", key,
			"--types", "int,text", "--reversed", "1", "00000003:62")
	}
	r = byKey("6b31")
	requireCode(t, 0, r)
	assert.Equal(t, "00000003:62\t2000\t5,6\n", r.stdout)
	r = byKey("6b30") // not in the index: the trie's candidate holds another key
	requireCode(t, 1, r)
	assert.Contains(t, r.stderr, "key 6b30 not found")
	requireCode(t, 2, bti("rows", "get", "--rows", out, "--entry", "3", "--partitions", parts, "--key", "6b31", "--types", "int", "00"))

	bad := filepath.Join(dir, "bad.tsv")
	for _, tc := range []struct{ body, msg string }{
		{strings.Replace(smallRows, "00000003:63\t00000003:61\t2000", "00000001:63\t00000003:61\t2000", 1), "blocks out of order or overlapping"},
		{strings.Replace(smallRows, "2000", "5", 1), "not after the previous block's 10"},
		{strings.Replace(smallRows, "00000004:", "0004:", 1), "clustering component 0 (int): value has 2 bytes"},
		{strings.Replace(smallRows, "00000004:", "zz", 1), "line 6: bad first clustering"},
		{strings.Replace(smallRows, "5,6", "-5,6", 1), "negative markedForDeleteAt"},
	} {
		writeFile(t, bad, tc.body)
		r := bti("rows", "build", "--in", bad, "--out", filepath.Join(dir, "bad.db"))
		requireCode(t, 2, r, tc.msg)
		assert.Contains(t, r.stderr, tc.msg)
		assert.NoFileExists(t, filepath.Join(dir, "bad.db"))
	}
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"rows"}, "rows needs a subcommand"},
		{[]string{"rows", "frob"}, `unknown rows subcommand "frob"`},
		{[]string{"rows", "build", "--in", in}, "--out is required"},
		{[]string{"rows", "get", "--rows", out, "--types", "int", "00"}, "give either --entry"},
		{[]string{"rows", "get", "--rows", out, "--entry", "1", "--types", "float", "00"}, "unknown clustering type"},
		{[]string{"rows", "get", "--rows", out, "--entry", "1", "--types", "int", "--reversed", "3", "00"}, "--reversed"},
		{[]string{"rows", "dump", "--rows", out}, "exactly one of --entry and --partitions"},
	} {
		r := bti(tc.args...)
		requireCode(t, 2, r, tc.args)
		assert.Contains(t, r.stderr, tc.msg)
	}
}

func TestRowsBench(t *testing.T) {
	r := bti("rows", "bench", "--forks", "0", "--blocks", "100", "--warmup", "-1", "--iterations", "1", "--time", "5ms", "--format", "csv")
	requireCode(t, 0, r)
	for _, name := range []string{"rows-build", "rows-lookup"} {
		assert.Equal(t, 2, strings.Count(r.stdout, name), r.stdout)
	}
	// benchfmt names are go test's (rowindex's BenchmarkRowsBuild and
	// BenchmarkRowsLookup run the same rowgen workloads).
	r = bti("rows", "bench", "--forks", "0", "--blocks", "100", "--warmup", "-1", "--iterations", "1", "--time", "5ms", "--format", "benchfmt")
	requireCode(t, 0, r)
	for _, name := range []string{
		"BenchmarkRowsBuild/blocks=100/path=scratch/threads=1", "BenchmarkRowsBuild/blocks=100/path=reference/threads=1",
		"BenchmarkRowsLookup/blocks=100/by=encoding/threads=1", "BenchmarkRowsLookup/blocks=100/by=value/threads=1",
	} {
		assert.Contains(t, r.stdout, name+"-") // then GOMAXPROCS, as go test prints it
	}
	r = bti("rows", "bench", "--forks", "0", "--blocks", "100", "--benchmark", "lookup", "--warmup", "-1", "--iterations", "1", "--time", "5ms", "--format", "csv")
	requireCode(t, 0, r)
	assert.Equal(t, 0, strings.Count(r.stdout, "rows-build"), r.stdout)
	assert.Equal(t, 2, strings.Count(r.stdout, "rows-lookup"), r.stdout)
	r = bti("rows", "bench", "--blocks", "1")
	requireCode(t, 2, r)
	assert.Contains(t, r.stderr, "--blocks 1")
}

// TestRowsBenchIn: --in times the Rows.db build of a given rows.tsv on both
// paths, one op per block; the file is checked first, so a line that does
// not parse or a block the writer refuses fails with its line number, and
// flags that make no sense with --in are usage errors.
func TestRowsBenchIn(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "small.tsv")
	writeFile(t, in, smallRows)
	quick := []string{"--forks", "0", "--warmup", "-1", "--iterations", "1", "--time", "5ms"}

	r := bti(append([]string{"rows", "bench", "--in", in, "--format", "csv"}, quick...)...)
	requireCode(t, 0, r)
	assert.Equal(t, 2, strings.Count(r.stdout, "rows-build"), r.stdout)
	assert.NotContains(t, r.stdout, "rows-lookup")
	for _, want := range []string{",small,3,scratch\n", ",small,3,reference\n"} { // params in, blocks, path
		assert.Contains(t, r.stdout, want)
	}
	r = bti(append([]string{"rows", "bench", "--in", in, "--format", "benchfmt"}, quick...)...)
	requireCode(t, 0, r)
	assert.Contains(t, r.stdout, "BenchmarkRowsBuild/in=small/blocks=3/path=scratch/threads=1-")

	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"--in", in, "--blocks", "50"}, "--blocks and --in exclude each other"},
		{[]string{"--in", in, "--benchmark", "lookup"}, "--in times rows-build only"},
	} {
		r := bti(append([]string{"rows", "bench"}, tc.args...)...)
		requireCode(t, 2, r, tc.args)
		assert.Contains(t, r.stderr, tc.msg)
	}

	r = bti("rows", "bench", "--in", filepath.Join(dir, "missing.tsv"))
	requireCode(t, 2, r)
	assert.Contains(t, r.stderr, "missing.tsv")

	// Line 5 does not parse; line 6's block overlaps line 5's.
	for _, tc := range []struct{ text, msg string }{
		{strings.Replace(smallRows, "00000003:63\t00000003:61\t2000", "00000003:63\t00000003:61\tx", 1), "line 5"},
		{strings.Replace(smallRows, "00000004:\t", "00000003:62\t", 1), "line 3"},
	} {
		bad := filepath.Join(dir, "bad.tsv")
		writeFile(t, bad, tc.text)
		require.NotEqual(t, smallRows, tc.text)
		r := bti(append([]string{"rows", "bench", "--in", bad}, quick...)...)
		requireCode(t, 2, r)
		assert.Contains(t, r.stderr, tc.msg)
		assert.NotContains(t, r.stdout, "rows-build", "nothing may be timed")
	}
}

// TestRowsBuildOutputs: rows build writes up to three files through the
// same output rules as build; an output that is the input, or two flags
// naming one file, is refused (exit 2) before anything is written.
func TestRowsBuildOutputs(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "rows.tsv")
	writeFile(t, in, smallRows)
	out, res := filepath.Join(dir, "Rows.db"), filepath.Join(dir, "RESULT")

	r := bti("rows", "build", "--in", in, "--out", in)
	requireCode(t, 2, r)
	assert.Contains(t, r.stderr, "it is the input")
	assert.Equal(t, smallRows, readFile(t, in), "the input must be untouched")

	r = bti("rows", "build", "--in", in, "--out", out, "--result", out)
	requireCode(t, 2, r)
	assert.Contains(t, r.stderr, "names the same file")
	assert.Equal(t, []string{"rows.tsv"}, listDir(t, dir), "nothing may be written")

	r = bti("rows", "build", "--in", in, "--out", filepath.Join(dir, "missing", "Rows.db"), "--result", res)
	requireCode(t, 2, r)
	assert.Equal(t, []string{"rows.tsv"}, listDir(t, dir), "a refused output leaves no other file behind")

	r = bti("rows", "build", "--in", in, "--out", out, "--result", res)
	requireCode(t, 0, r)
	assert.Equal(t, []string{"RESULT", "Rows.db", "rows.tsv"}, listDir(t, dir))
}

// One flag per file kind: --partitions (alias --index) is a Partitions.db
// everywhere, --rows a Rows.db; in the rows commands, where --index once
// named the Rows.db, it is refused naming both.
func TestFileFlagNames(t *testing.T) {
	c := smallGolden(t, "murmur3-1000-int64")
	for _, flagName := range []string{"--partitions", "--index"} {
		requireCode(t, 0, bti("check", flagName, c.db), flagName)
		requireCode(t, 0, bti("dump", flagName, c.db), flagName)
	}
	r := bti("rows", "dump", "--index", c.db, "--entry", "0")
	requireCode(t, 2, r)
	assert.Contains(t, r.stderr, "--rows names the Rows.db, --partitions the Partitions.db")
}

// TestRowsBenchRevisionCompare: --compare=BASE..CAND runs "bti rows bench"
// of two revisions as alternating fresh processes, forwards --in as an
// absolute path, compares both writer paths, removes its worktrees, and
// refuses --compare without revisions and --format.
func TestRowsBenchRevisionCompare(t *testing.T) {
	repo := tempRepo(t)
	dir := t.TempDir()
	in := filepath.Join(dir, "small.tsv")
	writeFile(t, in, smallRows)
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	out := filepath.Join(t.TempDir(), "rowscmp")

	r := bti("rows", "bench", "--compare=base..cand", "--repo", repo, "--out", out, "--rounds", "2",
		"--in", in, "--forks", "0", "--warmup", "-1", "--iterations", "1", "--time", "5ms")
	requireCode(t, 0, r)
	requireNoLeftovers(t, repo, tmp)
	var meta struct {
		BenchArgs []string `json:"bench_args"`
		Runs      []struct {
			Side    string   `json:"side"`
			Command []string `json:"command"`
		} `json:"runs"`
		Comparisons []struct {
			Benchmark string `json:"benchmark"`
		} `json:"comparisons"`
	}
	js := readFile(t, out+".json")
	require.NoError(t, json.Unmarshal([]byte(js), &meta), js)
	assert.Contains(t, meta.BenchArgs, "--in="+in)
	require.Len(t, meta.Runs, 4)
	for i, want := range []string{"baseline", "candidate", "candidate", "baseline"} {
		run := meta.Runs[i]
		assert.Equal(t, want, run.Side, "run %d", i+1)
		require.GreaterOrEqual(t, len(run.Command), 3)
		assert.Equal(t, []string{"rows", "bench"}, run.Command[1:3], "run %d", i+1)
	}
	var names []string
	for _, c := range meta.Comparisons {
		names = append(names, c.Benchmark)
	}
	require.Len(t, names, 2, "one comparison per writer path: %v", names)
	for _, n := range names {
		assert.Contains(t, n, "rows-build", names)
	}
	assert.Contains(t, r.stdout, "rows-build")

	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"--compare"}, "--compare needs two revisions"},
		{[]string{"--compare=base..cand", "--format", "json"}, "--format"},
		{[]string{"--compare=base", "--in", in}, "want BASE..CAND"},
	} {
		r := bti(append([]string{"rows", "bench"}, tc.args...)...)
		requireCode(t, 2, r, tc.args)
		assert.Contains(t, r.stderr, tc.msg)
	}
}
