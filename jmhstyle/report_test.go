package jmhstyle

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"strings"
	"testing"
)

func sampleResults() []Result {
	b := Benchmark{Name: "Get", Params: []Param{{"keys", "1000"}, {"path", "mmap"}}}
	one := newResult(b, plan{Threads: 1}, 2, []Sample{
		{NsPerOp: 10, Ops: 1000, Bytes: 64000, Allocs: 1000, Fork: 0, PID: 100},
		{NsPerOp: 12, Ops: 2000, Bytes: 128000, Allocs: 2000, Fork: 1, PID: 101},
	}, [][]Param{{{"seed", "1"}, {"rss", "10"}}, {{"seed", "1"}, {"rss", "12"}}})
	// One sample: the error is undefined (NaN) and must not break output.
	two := newResult(Benchmark{Name: "build"}, plan{Threads: 4}, 0, []Sample{{NsPerOp: 100.5, Ops: 10, PID: 7}}, nil)
	return []Result{one, two}
}

func TestWriteJSON(t *testing.T) {
	var sb strings.Builder
	prov := CollectProvenance()
	if err := WriteJSON(&sb, &prov, sampleResults()); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Provenance Provenance `json:"provenance"`
		Processes  []Process  `json:"processes"`
		Results    []json.RawMessage
	}
	if err := json.Unmarshal([]byte(sb.String()), &doc); err != nil {
		t.Fatalf("not a JSON object: %v\n%s", err, sb.String())
	}
	if doc.Provenance.GoVersion != prov.GoVersion || len(doc.Provenance.Command) == 0 {
		t.Errorf("provenance %+v", doc.Provenance)
	}
	wantProcs := []Process{{1, "Get/keys=1000/path=mmap/threads=1", 0, 100}, {2, "Get/keys=1000/path=mmap/threads=1", 1, 101}, {3, "build/threads=4", 0, 7}}
	if fmt.Sprint(doc.Processes) != fmt.Sprint(wantProcs) {
		t.Errorf("processes %v, want %v", doc.Processes, wantProcs)
	}
	results, err := json.Marshal(doc.Results)
	if err != nil {
		t.Fatal(err)
	}
	var got []struct {
		Benchmark       string            `json:"benchmark"`
		Params          map[string]string `json:"params"`
		NsPerOp         *float64          `json:"ns_per_op"`
		NsPerOpError    *float64          `json:"ns_per_op_error"`
		AllocBytesPerOp *float64          `json:"alloc_bytes_per_op"`
		AllocsPerOp     *float64          `json:"allocs_per_op"`
		Samples         int               `json:"samples"`
		Forks           int               `json:"forks"`
		Info            map[string]string `json:"info"`
	}
	if err := json.Unmarshal(results, &got); err != nil {
		t.Fatalf("results not a JSON array: %v\n%s", err, sb.String())
	}
	if len(got) != 2 {
		t.Fatalf("%d objects, want 2", len(got))
	}
	g := got[0]
	if g.Benchmark != "Get" || g.Params["keys"] != "1000" || g.Params["path"] != "mmap" || g.Params["threads"] != "1" {
		t.Errorf("first object: %+v", g)
	}
	if g.NsPerOp == nil || *g.NsPerOp != 11 || g.NsPerOpError == nil || g.AllocBytesPerOp == nil ||
		*g.AllocBytesPerOp != 64 || g.AllocsPerOp == nil || *g.AllocsPerOp != 1 || g.Samples != 2 || g.Forks != 2 {
		t.Errorf("first object numbers: %s", sb.String())
	}
	// The seed agreed between forks; the peak memory did not.
	if g.Info["seed"] != "1" || g.Info["rss"] != "10 12" {
		t.Errorf("first object info %v", g.Info)
	}
	if got[1].NsPerOpError != nil || got[1].Params["threads"] != "4" {
		t.Errorf("second object: error should be null for one sample: %s", sb.String())
	}
	// Every required key is present even when its value is null.
	var raw []map[string]any
	if err := json.Unmarshal(results, &raw); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"benchmark", "params", "ns_per_op", "ns_per_op_error", "alloc_bytes_per_op", "allocs_per_op"} {
		for i, o := range raw {
			if _, ok := o[k]; !ok {
				t.Errorf("object %d lacks %q", i, k)
			}
		}
	}
}

func TestWriteCSV(t *testing.T) {
	var sb strings.Builder
	if err := WriteCSV(&sb, sampleResults()); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(strings.NewReader(sb.String())).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 3 {
		t.Fatalf("%d records, want header + 2", len(recs))
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	for _, h := range []string{"Benchmark", "Mode", "Threads", "Samples", "Score", "Score Error (99.9%)", "Unit", "Alloc B/op", "Allocs/op", "Param: keys", "Param: path"} {
		if _, ok := col[h]; !ok {
			t.Errorf("CSV header lacks %q: %v", h, recs[0])
		}
	}
	r := recs[1]
	if r[col["Benchmark"]] != "Get" || r[col["Score"]] != "11" || r[col["Alloc B/op"]] != "64" ||
		r[col["Param: keys"]] != "1000" || r[col["Mode"]] != "avgt" || r[col["Unit"]] != "ns/op" {
		t.Errorf("first row: %v", r)
	}
	if recs[2][col["Param: keys"]] != "N/A" || recs[2][col["Threads"]] != "4" {
		t.Errorf("second row: %v", recs[2])
	}
}

func TestWriteText(t *testing.T) {
	var sb strings.Builder
	if err := WriteText(&sb, sampleResults()); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(sb.String(), "\n"), "\n")
	if len(lines) != 3 {
		t.Fatalf("%d lines, want 3:\n%s", len(lines), sb.String())
	}
	header := strings.Fields(lines[0])
	want := []string{"Benchmark", "(keys)", "(path)", "(threads)", "Mode", "Cnt", "Score", "Error", "Units", "B/op", "allocs/op"}
	if strings.Join(header, " ") != strings.Join(want, " ") {
		t.Errorf("header %q, want %q", header, want)
	}
	row := strings.Fields(lines[1])
	// Error of {10, 12}: t(0.9995, 1) · s/√n = 636.619 · √2/√2.
	if strings.Join(row, " ") != "Get 1000 mmap 1 avgt 2 11.000 ± 636.619 ns/op 64.0 1.000" {
		t.Errorf("row %q", lines[1])
	}
	// Columns are aligned: every line ends at the same width.
	for _, l := range lines[1:] {
		if len([]rune(l)) != len([]rune(lines[0])) {
			t.Errorf("line widths differ:\n%s", sb.String())
			break
		}
	}
	if strings.Contains(lines[2], "NaN") || !strings.Contains(lines[2], "N/A") {
		t.Errorf("single-sample row %q", lines[2])
	}
}

func TestWriteBenchfmt(t *testing.T) {
	var sb strings.Builder
	if err := WriteBenchfmt(&sb, nil, sampleResults()); err != nil {
		t.Fatal(err)
	}
	line := regexp.MustCompile(`^Benchmark[A-Z][^\s]*(-\d+)?\t\d+\t[\d.]+ ns/op\t[\d.]+ B/op\t[\d.]+ allocs/op$`)
	var bench []string
	for _, l := range strings.Split(strings.TrimSpace(sb.String()), "\n") {
		switch {
		case strings.HasPrefix(l, "goos: ") || strings.HasPrefix(l, "goarch: "):
		case line.MatchString(l):
			bench = append(bench, l)
		default:
			t.Errorf("not a benchfmt line: %q", l)
		}
	}
	if len(bench) != 3 { // one per sample
		t.Fatalf("%d benchmark lines, want 3:\n%s", len(bench), sb.String())
	}
	if !strings.HasPrefix(bench[0], "BenchmarkGet/keys=1000/path=mmap/threads=1") ||
		!strings.Contains(bench[0], "\t1000\t10 ns/op\t64 B/op\t1 allocs/op") {
		t.Errorf("first line %q", bench[0])
	}
	if !strings.HasPrefix(bench[2], "BenchmarkBuild/threads=4") || !strings.Contains(bench[2], "100.500 ns/op") {
		t.Errorf("last line %q", bench[2])
	}
}

func TestWriteComparison(t *testing.T) {
	c := CompareScores([]float64{10, 11, 12}, []float64{8, 9})
	c.Baseline.Benchmark, c.Candidate.Benchmark = "old", "new"
	var sb strings.Builder
	if err := WriteComparison(&sb, c); err != nil {
		t.Fatal(err)
	}
	out := sb.String()
	for _, w := range []string{"baseline", "candidate", "old", "new", "11.000", "8.500", "-22.73%", "disjoint"} {
		if !strings.Contains(out, w) {
			t.Errorf("comparison output lacks %q:\n%s", w, out)
		}
	}
	if !math.IsNaN(newResult(Benchmark{}, plan{}, 0, nil, nil).Score) {
		t.Error("empty result should have NaN score")
	}
}

func TestBenchName(t *testing.T) {
	for _, tc := range []struct {
		name    string
		params  []Param
		threads int
		want    string
	}{
		{"lookup-hit", []Param{{"keys", "1000"}}, 1, "BenchmarkLookupHit/keys=1000/threads=1"},
		{"binary-search-hit", nil, 2, "BenchmarkBinarySearchHit/threads=2"},
		{"build", []Param{{"set", "a"}, {"path", "scratch"}}, 1, "BenchmarkBuild/set=a/path=scratch/threads=1"},
		{"BenchmarkX", nil, 1, "BenchmarkX/threads=1"},
	} {
		if got := BenchName(tc.name, tc.params, tc.threads); got != tc.want {
			t.Errorf("BenchName(%q) = %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestWriteBenchfmtProvenance(t *testing.T) {
	prov := Provenance{GOOS: "linux", GOARCH: "amd64", Module: "example.com/m", CPU: "Some CPU @ 2GHz",
		Revision: "abc", RevisionSource: "git", Command: []string{"bti", "bench", "--count", "6"}}
	var sb strings.Builder
	if err := WriteBenchfmt(&sb, &prov, sampleResults()); err != nil {
		t.Fatal(err)
	}
	out := sb.String()
	// What go test prints is configuration; the rest are comments, so
	// benchstat does not split tables by revision or command.
	for _, want := range []string{"\ngoos: linux\n", "\ngoarch: amd64\n", "\npkg: example.com/m\n", "\ncpu: Some CPU @ 2GHz\n",
		"\n# module: example.com/m\n", "\n# vcs-revision: abc\n", "\n# vcs-modified: unknown\n", "\n# vcs-source: git\n",
		"\n# command: bti bench --count 6\n"} {
		if !strings.Contains("\n"+out, want) {
			t.Errorf("benchfmt lacks %q:\n%s", want, out)
		}
	}
	prov.Package = "example.com/m/sub"
	sb.Reset()
	if err := WriteBenchfmt(&sb, &prov, sampleResults()); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(sb.String(), "\npkg: example.com/m/sub\n") || !strings.Contains(sb.String(), "\n# module: example.com/m\n") {
		t.Errorf("Package should name pkg:\n%s", sb.String())
	}
	var text strings.Builder
	if err := WriteProvenance(&text, prov, sampleResults()); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"# vcs-revision: abc\n", "# process 2: Get/keys=1000/path=mmap/threads=1 fork 1 pid 101\n",
		"# info Get/keys=1000/path=mmap/threads=1: seed=1 rss=10 12\n"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text provenance lacks %q:\n%s", want, text.String())
		}
	}
}
