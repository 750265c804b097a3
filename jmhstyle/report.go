package jmhstyle

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"runtime"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Reports show only average time (JMH's avgt) in nanoseconds.
const (
	mode  = "avgt"
	units = "ns/op"
)

// reportParams returns the parameters of r as shown in reports: the
// benchmark's own, then "threads", so runs differing only in thread count
// stay apart in every format.
func reportParams(r Result) []Param {
	ps := append([]Param(nil), r.Params...)
	return append(ps, Param{"threads", strconv.Itoa(r.Threads)})
}

// paramKeys is the union of parameter keys in first-seen order; it gives
// the parameter columns of the text and CSV tables.
func paramKeys(rs []Result) []string {
	var keys []string
	seen := map[string]bool{}
	for _, r := range rs {
		for _, p := range reportParams(r) {
			if !seen[p.Key] {
				seen[p.Key] = true
				keys = append(keys, p.Key)
			}
		}
	}
	return keys
}

// paramValue returns the value of key, or "N/A" as JMH prints for a
// benchmark that lacks the parameter.
func paramValue(r Result, key string) string {
	for _, p := range reportParams(r) {
		if p.Key == key {
			return p.Value
		}
	}
	return "N/A"
}

// WriteText writes results as an aligned table in the layout of JMH's
// console summary, with allocation columns added.
func WriteText(w io.Writer, rs []Result) error {
	keys := paramKeys(rs)
	header := []string{"Benchmark"}
	for _, k := range keys {
		header = append(header, "("+k+")")
	}
	header = append(header, "Mode", "Cnt", "Score", "", "Error", "Units", "B/op", "allocs/op")
	rows := [][]string{header}
	for _, r := range rs {
		row := []string{r.Benchmark}
		for _, k := range keys {
			row = append(row, paramValue(r, k))
		}
		pm, errStr := "±", fmt.Sprintf("%.3f", r.Error)
		if math.IsNaN(r.Error) {
			pm, errStr = "", "" // as JMH: no interval from one sample
		}
		row = append(row, mode, strconv.Itoa(len(r.Samples)), fmt.Sprintf("%.3f", r.Score), pm, errStr, units,
			fmt.Sprintf("%.1f", r.BytesPerOp), fmt.Sprintf("%.3f", r.AllocsPerOp))
		rows = append(rows, row)
	}
	return WriteTable(w, rows)
}

// WriteTable pads cells into columns two spaces apart, the first column
// left-aligned and the others right-aligned like numbers in JMH's table.
func WriteTable(w io.Writer, rows [][]string) error {
	var widths []int
	for _, row := range rows {
		for i, c := range row {
			if i >= len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], utf8.RuneCountInString(c))
		}
	}
	var sb strings.Builder
	for _, row := range rows {
		for i, c := range row {
			pad := strings.Repeat(" ", widths[i]-utf8.RuneCountInString(c))
			switch {
			case i == 0:
				sb.WriteString(c + pad)
			default:
				sb.WriteString("  " + pad + c)
			}
		}
		sb.WriteString("\n")
	}
	_, err := io.WriteString(w, sb.String())
	return err
}

// WriteCSV writes results in the column layout of JMH's CSV output
// ("Benchmark","Mode","Threads",…,"Param: k"), with allocation columns
// before the parameters.
func WriteCSV(w io.Writer, rs []Result) error {
	var keys []string
	for _, k := range paramKeys(rs) {
		if k != "threads" { // already a column of its own
			keys = append(keys, k)
		}
	}
	cw := csv.NewWriter(w)
	header := []string{"Benchmark", "Mode", "Threads", "Samples", "Score", "Score Error (99.9%)", "Unit",
		"Alloc B/op", "Allocs/op", "Min", "Max", "Forks"}
	for _, k := range keys {
		header = append(header, "Param: "+k)
	}
	if err := cw.Write(header); err != nil {
		return err
	}
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	for _, r := range rs {
		row := []string{r.Benchmark, mode, strconv.Itoa(r.Threads), strconv.Itoa(len(r.Samples)),
			f(r.Score), f(r.Error), units, f(r.BytesPerOp), f(r.AllocsPerOp), f(r.Min), f(r.Max),
			strconv.Itoa(r.Forks)}
		for _, k := range keys {
			row = append(row, paramValue(r, k))
		}
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// jsonResult is the JSON form of a Result. Undefined statistics (the error
// of a single sample) are null, since JSON has no NaN.
type jsonResult struct {
	Benchmark       string            `json:"benchmark"`
	Mode            string            `json:"mode"`
	Params          map[string]string `json:"params"`
	NsPerOp         *float64          `json:"ns_per_op"`
	NsPerOpError    *float64          `json:"ns_per_op_error"`
	AllocBytesPerOp float64           `json:"alloc_bytes_per_op"`
	AllocsPerOp     float64           `json:"allocs_per_op"`
	Min             *float64          `json:"min_ns_per_op"`
	Max             *float64          `json:"max_ns_per_op"`
	Samples         int               `json:"samples"`
	Forks           int               `json:"forks"`
	Threads         int               `json:"threads"`
	RawNsPerOp      []float64         `json:"raw_ns_per_op"`
	Info            map[string]string `json:"info,omitempty"`
}

// Process is one process that ran measurements, in the order they ran.
type Process struct {
	Seq       int    `json:"seq"`
	Benchmark string `json:"benchmark"` // ID, with threads
	Fork      int    `json:"fork"`
	PID       int    `json:"pid"`
}

// ProcessOrder lists the processes that produced rs in the order they ran
// (results in rs order, forks in fork order). In-process results have one
// entry each, all with this process's PID.
func ProcessOrder(rs []Result) []Process {
	var out []Process
	for _, r := range rs {
		id := Benchmark{Name: r.Benchmark, Params: reportParams(r)}.ID()
		last := -1
		for _, s := range r.Samples {
			if n := len(out); n > 0 && last == n-1 && out[n-1].Fork == s.Fork && out[n-1].PID == s.PID {
				continue
			}
			out = append(out, Process{Seq: len(out) + 1, Benchmark: id, Fork: s.Fork, PID: s.PID})
			last = len(out) - 1
		}
	}
	return out
}

// jsonReport is the JSON document WriteJSON writes.
type jsonReport struct {
	Provenance *Provenance  `json:"provenance"`
	Processes  []Process    `json:"processes"`
	Results    []jsonResult `json:"results"`
}

func finite(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

// WriteJSON writes one indented JSON object: the provenance (null if prov
// is nil), the processes in the order they ran (ProcessOrder) and the
// results, each with its raw per-iteration scores and its Info.
func WriteJSON(w io.Writer, prov *Provenance, rs []Result) error {
	out := make([]jsonResult, 0, len(rs))
	for _, r := range rs {
		params := map[string]string{}
		for _, p := range reportParams(r) {
			params[p.Key] = p.Value
		}
		raw := make([]float64, len(r.Samples))
		for i, s := range r.Samples {
			raw[i] = s.NsPerOp
		}
		var info map[string]string
		if len(r.Info) > 0 {
			info = map[string]string{}
			for _, p := range r.Info {
				info[p.Key] = p.Value
			}
		}
		out = append(out, jsonResult{
			Benchmark: r.Benchmark, Mode: mode, Params: params,
			NsPerOp: finite(r.Score), NsPerOpError: finite(r.Error),
			AllocBytesPerOp: r.BytesPerOp, AllocsPerOp: r.AllocsPerOp,
			Min: finite(r.Min), Max: finite(r.Max),
			Samples: len(r.Samples), Forks: r.Forks, Threads: r.Threads, RawNsPerOp: raw, Info: info,
		})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(jsonReport{Provenance: prov, Processes: ProcessOrder(rs), Results: out})
}

// WriteBenchfmt writes one Go benchmark-format line per measurement
// iteration (benchstat wants the individual samples, not the mean):
//
//	BenchmarkGet/keys=1000/threads=1-8  1234567  12.3 ns/op  64 B/op  1 allocs/op
//
// preceded by the provenance (Provenance.Lines) if prov is not nil, else
// goos and goarch. Of the provenance, only what go test prints (goos,
// goarch, pkg, cpu) is written as benchfmt configuration; the rest (the
// revision, the command, ...) is written as "# key: value" lines, which
// benchfmt readers skip. benchstat splits its tables by configuration, so
// this way "benchstat old.txt new.txt" compares two revisions, and a go
// test output with a bti bench output, without -ignore flags, while the
// file still says what produced it.
func WriteBenchfmt(w io.Writer, prov *Provenance, rs []Result) error {
	var sb strings.Builder
	if prov != nil {
		for _, l := range prov.Lines() {
			if key, _, _ := strings.Cut(l, ":"); !goTestConfigKeys[key] {
				sb.WriteString("# ")
			}
			sb.WriteString(l + "\n")
		}
	} else {
		fmt.Fprintf(&sb, "goos: %s\ngoarch: %s\n", runtime.GOOS, runtime.GOARCH)
	}
	for _, r := range rs {
		name := benchfmtName(r)
		for _, s := range r.Samples {
			var bpo, apo float64
			if s.Ops > 0 {
				bpo = float64(s.Bytes) / float64(s.Ops)
				apo = float64(s.Allocs) / float64(s.Ops)
			}
			fmt.Fprintf(&sb, "%s\t%d\t%s ns/op\t%s B/op\t%s allocs/op\n",
				name, s.Ops, benchNum(s.NsPerOp), benchNum(bpo), benchNum(apo))
		}
	}
	_, err := io.WriteString(w, sb.String())
	return err
}

// benchfmtName is BenchName plus the testing package's -GOMAXPROCS suffix
// (omitted when it is 1), with white space replaced because benchfmt splits
// fields on it.
func benchfmtName(r Result) string {
	name := BenchName(r.Benchmark, r.Params, r.Threads)
	if procs := runtime.GOMAXPROCS(0); procs > 1 {
		name += "-" + strconv.Itoa(procs)
	}
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return '_'
		}
		return r
	}, name)
}

// BenchName is the name a Go benchmark with the same name, parameters and
// thread count has in "go test -bench" output (without the -GOMAXPROCS
// suffix): "Benchmark" + the name in CamelCase, with "-" dropped as a word
// separator, then "/key=value" per parameter and "/threads=T". So
// "lookup-hit" with keys=1000 on one thread is
// "BenchmarkLookupHit/keys=1000/threads=1", which a testing.B function
// BenchmarkLookupHit produces with b.Run("keys=1000/threads=1", …); a suite
// that exists both as go test benchmarks and as a jmhstyle program can thus
// be compared by benchstat line for line. A name already starting with
// "Benchmark" is kept as it is.
func BenchName(name string, params []Param, threads int) string {
	var sb strings.Builder
	if strings.HasPrefix(name, "Benchmark") {
		sb.WriteString(name)
	} else {
		sb.WriteString("Benchmark")
		for _, word := range strings.Split(name, "-") {
			rn, size := utf8.DecodeRuneInString(word)
			if size > 0 {
				sb.WriteRune(unicode.ToUpper(rn))
				sb.WriteString(word[size:])
			}
		}
	}
	for _, p := range params {
		sb.WriteString("/" + p.Key + "=" + p.Value)
	}
	sb.WriteString("/threads=" + strconv.Itoa(threads))
	return sb.String()
}

// benchNum prints whole numbers without decimals, others with three.
func benchNum(v float64) string {
	if v == math.Trunc(v) {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'f', 3, 64)
}

// WriteProvenance writes the provenance and the process order as "# "
// comment lines, for the end of a text report, followed by each result's
// Info.
func WriteProvenance(w io.Writer, prov Provenance, rs []Result) error {
	var sb strings.Builder
	for _, l := range prov.Lines() {
		sb.WriteString("# " + l + "\n")
	}
	for _, p := range ProcessOrder(rs) {
		fmt.Fprintf(&sb, "# process %d: %s fork %d pid %d\n", p.Seq, p.Benchmark, p.Fork, p.PID)
	}
	for _, r := range rs {
		if len(r.Info) == 0 {
			continue
		}
		var kv []string
		for _, p := range r.Info {
			kv = append(kv, p.Key+"="+p.Value)
		}
		fmt.Fprintf(&sb, "# info %s: %s\n", Benchmark{Name: r.Benchmark, Params: reportParams(r)}.ID(), strings.Join(kv, " "))
	}
	_, err := io.WriteString(w, sb.String())
	return err
}

// WriteComparison writes an A/B comparison as a small aligned table and a
// verdict line.
func WriteComparison(w io.Writer, c Comparison) error {
	row := func(label string, s Side) []string {
		id := Benchmark{Name: s.Benchmark, Params: s.Params}.ID()
		return []string{label, id, strconv.Itoa(len(s.Scores)), fmt.Sprintf("%.3f", s.Median),
			fmt.Sprintf("%.3f … %.3f", s.Min, s.Max), units,
			fmt.Sprintf("%.1f", s.BytesPerOp), fmt.Sprintf("%.3f", s.AllocsPerOp)}
	}
	rows := [][]string{
		{"Side", "Benchmark", "Rounds", "Median", "Range", "Units", "B/op", "allocs/op"},
		row("baseline", c.Baseline),
		row("candidate", c.Candidate),
	}
	if err := WriteTable(w, rows); err != nil {
		return err
	}
	verdict := "ranges overlap: difference not established"
	if c.Disjoint {
		verdict = "ranges disjoint"
	}
	_, err := fmt.Fprintf(w, "change: %+.2f%% (candidate vs baseline median; %s)\n", c.ChangePct, verdict)
	return err
}
