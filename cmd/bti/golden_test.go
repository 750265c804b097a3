package main

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bti-go/bti/audit"
	"github.com/bti-go/bti/internal/golden"
)

// annotator dumps a Partitions.db for golden.Compare's mismatch report
// (the layout depends on no partitioner, so bytes that went wrong are shown
// whichever partitioner their footer's keys fit).
func annotator(data []byte, w io.Writer) error {
	return audit.WriteAnnotated(w, data)
}

// TestGoldenBuild rebuilds every golden case with both builder paths, with
// the case's early-open requests, and wants Cassandra's bytes.
func TestGoldenBuild(t *testing.T) {
	for _, c := range goldenCases(t) {
		st, err := os.Stat(c.keys)
		require.NoError(t, err)
		big := st.Size() > 2<<20
		for _, path := range []string{"scratch", "reference"} {
			t.Run(c.name+"/"+path, func(t *testing.T) {
				if big && path == "reference" && testing.Short() {
					t.Skip("big case: reference path skipped under -short")
				}
				t.Parallel()
				out := filepath.Join(t.TempDir(), "Partitions.db")
				args := []string{"build", "--in", c.keys, "--out", out, "--partitioner", c.part, "--path", path}
				if len(c.partialAt) > 0 {
					args = append(args, "--partial-at", strings.Join(c.partialAt, ","))
				}
				r := bti(args...)
				requireCode(t, 0, r)
				golden.Compare(t, c.name, []byte(readFile(t, c.db)), []byte(readFile(t, out)), annotator)
				assert.Equal(t, []string{"Partitions.db"}, listDir(t, filepath.Dir(out)), "temporary files left behind")
			})
		}
	}
}

func TestGoldenPartialDeclinedIsReported(t *testing.T) {
	c := smallGolden(t, "murmur3-50000-uuid-partial")
	require.Contains(t, c.partialAt, "1", "the case lists a declined request after key 1")
	out := filepath.Join(t.TempDir(), "Partitions.db")
	r := bti("build", "--in", c.keys, "--out", out, "--partial-at", "1,2,3", "--stats", "json")
	requireCode(t, 0, r)
	assert.Contains(t, r.stderr, "after key 1 declined")
	var st map[string]any
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &st))
	assert.EqualValues(t, 3, st["partials_requested"])
	assert.EqualValues(t, 2, st["partials_accepted"])
}

func TestGoldenVerify(t *testing.T) {
	for _, c := range goldenCases(t) {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			r := bti("verify", "--index", c.db, "--in", c.keys, "--partitioner", c.part)
			requireCode(t, 0, r)
			assert.True(t, strings.HasPrefix(r.stdout, "ok: "), r.stdout)
			assert.Equal(t, 1, strings.Count(r.stdout, "\n"), "one-line summary")
		})
	}
}

// firstLine returns the key hex and position of a keys.tsv's first line.
func firstLine(t *testing.T, path string) (string, string) {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	sc := bufio.NewScanner(f)
	require.True(t, sc.Scan())
	key, pos, ok := strings.Cut(sc.Text(), "\t")
	require.True(t, ok)
	return key, pos
}

func TestGet(t *testing.T) {
	c := smallGolden(t, "murmur3-1000-int64")
	key, pos := firstLine(t, c.keys)

	r := bti("get", "--index", c.db, key)
	requireCode(t, 0, r)
	assert.Equal(t, key+"\t"+pos+"\n", r.stdout)

	// Flags after the keys work too, and upper-case hex is accepted.
	r = bti("get", strings.ToUpper(key), "--index", c.db, "--partitioner", "murmur3")
	requireCode(t, 0, r)
	assert.Equal(t, key+"\t"+pos+"\n", r.stdout)

	const missing = "00112233"
	r = bti("get", "--index", c.db, key, missing)
	requireCode(t, 1, r)
	assert.Equal(t, key+"\t"+pos+"\n"+missing+"\tnot found\n", r.stdout)
	assert.Contains(t, r.stderr, "1 of 2 keys not found")
}

func TestDumpFormats(t *testing.T) {
	c := smallGolden(t, "murmur3-1000-int64")
	key, _ := firstLine(t, c.keys)
	data := readFile(t, c.db)

	r := bti("dump", "--index", c.db)
	requireCode(t, 0, r)
	for _, want := range []string{"firstKeyPos", "count        1000", "first key    " + key, "PAYLOAD_ONLY", "pages per lookup", "bytes/key", "max depth"} {
		assert.Contains(t, r.stdout, want)
	}
	assert.Contains(t, r.stdout, "\nnodes (offsets in hex", "a small index lists its nodes")
	nodeLines := strings.Count(r.stdout, " PAYLOAD_ONLY flags=")
	assert.Equal(t, 1000, nodeLines, "one payload node per key in the node list")

	r = bti("dump", "--index", c.db, "--format", "json")
	requireCode(t, 0, r)
	var info map[string]any
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &info))
	for _, f := range []string{"first_key_pos", "count", "root", "first_key", "last_key", "nodes", "node_types", "max_depth", "pages_per_lookup", "bytes_per_key"} {
		assert.Contains(t, info, f)
	}
	assert.EqualValues(t, 1000, info["count"])
	assert.Equal(t, key, info["first_key"])
	assert.InDelta(t, float64(len(data))/1000, info["bytes_per_key"], 1e-9)
	assert.EqualValues(t, 1000, info["payload_nodes"])
	nodes := int(info["nodes"].(float64))

	r = bti("dump", "--index", c.db, "--format", "hex")
	requireCode(t, 0, r)
	assert.Equal(t, nodes+5, strings.Count(r.stdout, "\n")-strings.Count(r.stdout, "\n       ")-strings.Count(r.stdout, "padding"),
		"one line group per node, two footer keys and three footer numbers")

	r = bti("dump", "--index", c.db, "--format", "dot")
	requireCode(t, 0, r)
	assert.True(t, strings.HasPrefix(r.stdout, "digraph "), r.stdout[:min(len(r.stdout), 100)])
	assert.True(t, strings.HasSuffix(r.stdout, "}\n"))
	assert.Equal(t, nodes, strings.Count(r.stdout, "[label=\"@"), "one dot node per trie node")
	assert.Equal(t, nodes-1, strings.Count(r.stdout, " -> "), "a tree has nodes-1 edges")
	assert.Equal(t, 1000, strings.Count(r.stdout, " pos="), "payload labels")

	requireFails(t, "more than --max-dot-nodes", "dump", "--index", c.db, "--format", "dot", "--max-dot-nodes", strconv.Itoa(nodes-1))
}

func TestDumpLargeListsNodesOnlyOnRequest(t *testing.T) {
	c := smallGolden(t, "murmur3-20000-text")
	r := bti("dump", "--index", c.db)
	requireCode(t, 0, r)
	assert.NotContains(t, r.stdout, "PAYLOAD_ONLY flags=")
	r = bti("dump", "--index", c.db, "--nodes")
	requireCode(t, 0, r)
	assert.Equal(t, 20000, strings.Count(r.stdout, "PAYLOAD_ONLY flags="))
}

func TestBuildStats(t *testing.T) {
	c := smallGolden(t, "murmur3-1000-int64")
	dir := t.TempDir()
	out := filepath.Join(dir, "Partitions.db")
	r := bti("build", "--in", c.keys, "--out", out, "--stats", "json", "--path", "reference")
	requireCode(t, 0, r)
	require.Equal(t, 1, strings.Count(r.stdout, "\n"), "one JSON object on one line")
	var st map[string]any
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &st))
	for _, f := range []string{"keys", "index_bytes", "path", "build_ns_per_key", "alloc_bytes_per_key", "allocs_per_key"} {
		require.Contains(t, st, f)
	}
	assert.EqualValues(t, 1000, st["keys"])
	fi, err := os.Stat(out)
	require.NoError(t, err)
	assert.EqualValues(t, fi.Size(), st["index_bytes"])
	assert.Equal(t, "reference", st["path"])
	assert.Positive(t, st["build_ns_per_key"])
	assert.Positive(t, st["alloc_bytes_per_key"], "the reference path allocates per key")

	r = bti("build", "--in", c.keys, "--out", out, "--stats", "text")
	requireCode(t, 0, r)
	for _, want := range []string{"keys", "1000", "index bytes", "ns/key", "B/key", "allocs/key", "scratch"} {
		assert.Contains(t, r.stdout, want)
	}
	// Without --stats, build prints nothing.
	r = bti("build", "--in", c.keys, "--out", out)
	requireCode(t, 0, r)
	assert.Empty(t, r.stdout)
	assert.Equal(t, []string{"Partitions.db"}, listDir(t, dir))
}

// bti check: exit 0 on every golden file with the partitioner detected,
// 1 with the problem's offset on damage the readers miss, 2 when the footer
// cannot be read; verify --deep runs both checks.
func TestCheckCommand(t *testing.T) {
	for _, c := range goldenCases(t) {
		r := bti("check", "--index", c.db)
		requireCode(t, 0, r, c.name)
		require.Contains(t, r.stdout, "ok: no rule broken")
		if c.name != "murmur3-1" {
			require.Contains(t, r.stdout, "partitioner:  "+c.part+" (detected)", c.name)
		}
	}

	c := smallGolden(t, "murmur3-1000-int64")
	data := []byte(readFile(t, c.db))
	dir := t.TempDir()

	// A SPARSE_8 pointer (node 0x48, first child) moved one byte into a leaf.
	damaged := append([]byte(nil), data...)
	damaged[0x53] ^= 0x01
	bad := filepath.Join(dir, "damaged.db")
	writeFile(t, bad, string(damaged))
	r := bti("check", "--index", bad)
	requireCode(t, 1, r)
	require.Contains(t, r.stdout, "problem: offset ")
	require.Contains(t, r.stderr, "FAILED")

	r = bti("check", "--index", bad, "--format", "json")
	requireCode(t, 1, r)
	var out struct {
		OK       bool `json:"ok"`
		Problems []struct {
			Offset int64  `json:"offset"`
			Rule   string `json:"rule"`
		} `json:"problems"`
		ProblemCount int64 `json:"problem_count"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &out))
	require.False(t, out.OK)
	require.NotEmpty(t, out.Problems)
	require.Positive(t, out.ProblemCount)

	short := filepath.Join(dir, "short.db")
	writeFile(t, short, string(data[:10]))
	requireCode(t, 2, bti("check", "--index", short))

	r = bti("verify", "--deep", "--index", c.db, "--in", c.keys, "--partitioner", "auto")
	requireCode(t, 0, r)
	require.Contains(t, r.stdout, "ok: no rule broken")
	require.Contains(t, r.stdout, "1000 keys found")
	requireCode(t, 0, bti("verify", "--deep", "--index", c.db))
	requireCode(t, 1, bti("verify", "--deep", "--index", bad, "--in", c.keys))
	// The golden positions are random: the opt-in rule fails them.
	requireCode(t, 1, bti("check", "--index", c.db, "--positions", "increasing"))

	for _, args := range [][]string{
		{"check"},
		{"check", "--index", c.db, "--format", "xml"},
		{"check", "--index", c.db, "--positions", "sorted"},
		{"check", "--index", c.db, "--partitioner", "md5"},
		{"verify", "--deep"},
		{"gen", "--kind", "uuid", "--count", "3", "--positions", "up"},
	} {
		requireCode(t, 2, bti(args...), args)
	}
}

// TestRowsBuildGolden runs "bti rows build" on every golden-rows case, on
// both paths, and compares Rows.db and RESULT with Cassandra's (as cmp
// would); the Partitions.db it writes beside them is dumped back to the
// same entries.
func TestRowsBuildGolden(t *testing.T) {
	golden.ForEachRows(t, func(t *testing.T, c golden.RowsCase) {
		dir := t.TempDir()
		out, res, parts := filepath.Join(dir, "Rows.db"), filepath.Join(dir, "RESULT"), filepath.Join(dir, "Partitions.db")
		for _, path := range []string{"scratch", "reference"} {
			r := bti("rows", "build", "--in", c.InputPath, "--out", out, "--result", res,
				"--partitions", parts, "--partitioner", "byteordered", "--path", path)
			requireCode(t, 0, r)
			assert.True(t, string(c.RowsDB(t)) == readFile(t, out), "%s: Rows.db differs", path)
			assert.Equal(t, string(c.Result(t)), readFile(t, res), path)
		}
		r := bti("rows", "dump", "--rows", out, "--partitions", parts, "--partitioner", "byteordered")
		requireCode(t, 0, r)
		indexed := 0
		for _, line := range strings.Split(string(c.Result(t)), "\n")[1:] {
			if f := strings.Fields(line); len(f) == 4 && !strings.HasPrefix(f[1], "-") {
				indexed++
				assert.Contains(t, r.stdout, "entry "+f[1]+" key "+f[0]+" ")
			}
		}
		assert.Equal(t, indexed, strings.Count(r.stdout, "entry "))
	})
}

// TestCheckRowsCommand: bti check --rows audits every golden Rows.db
// (Cassandra's bytes) against the Partitions.db rows build writes beside
// it (exit 0), reports a damaged copy with the offset (exit 1, also in
// JSON) and refuses an unreadable Rows.db (exit 2).
func TestCheckRowsCommand(t *testing.T) {
	dir := t.TempDir()
	for _, c := range golden.RowsCases(t) {
		parts := filepath.Join(dir, c.Name+".Partitions.db")
		requireCode(t, 0, bti("rows", "build", "--in", c.InputPath, "--out", filepath.Join(dir, c.Name+".Rows.db"),
			"--partitions", parts, "--partitioner", "byteordered"))
		r := bti("check", "--index", parts, "--rows", c.DBPath)
		requireCode(t, 0, r, c.Name)
		assert.Contains(t, r.stdout, "ok: "+c.DBPath+" breaks no rule", c.Name)
		if c.Name != "multi-partition" {
			continue
		}
		assert.Contains(t, r.stdout, "row entries:  5\nrow blocks:   91\n")
		// 7002's root, SINGLE_8 at 201: its child pointer moved forwards.
		damaged := []byte(readFile(t, c.DBPath))
		damaged[203] = 0x2a
		bad := filepath.Join(dir, "damaged.Rows.db")
		writeFile(t, bad, string(damaged))
		r = bti("check", "--index", parts, "--rows", bad)
		requireCode(t, 1, r)
		assert.Contains(t, r.stdout, "rows problem: offset 159, entry 217: entry: ")
		assert.Contains(t, r.stderr, "FAILED: "+bad)
		r = bti("check", "--index", parts, "--rows", bad, "--format", "json")
		requireCode(t, 1, r)
		var out struct {
			OK   bool `json:"ok"`
			Rows struct {
				OK       bool `json:"ok"`
				Entries  int  `json:"entries"`
				Problems []struct {
					Offset int64  `json:"offset"`
					Entry  int64  `json:"entry"`
					Rule   string `json:"rule"`
				} `json:"problems"`
			} `json:"rows"`
		}
		require.NoError(t, json.Unmarshal([]byte(r.stdout), &out))
		assert.True(t, out.OK, "the partition index itself is fine")
		assert.False(t, out.Rows.OK)
		require.Len(t, out.Rows.Problems, 1)
		assert.Equal(t, int64(217), out.Rows.Problems[0].Entry)
		assert.Equal(t, "entry", out.Rows.Problems[0].Rule)
		requireCode(t, 2, bti("check", "--index", parts, "--rows", filepath.Join(dir, "missing.db")))
	}
}
