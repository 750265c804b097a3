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
	return writeAligned(w, rows)
}

// writeAligned pads cells into columns two spaces apart, the first column
// left-aligned and the others right-aligned like numbers in JMH's table.
func writeAligned(w io.Writer, rows [][]string) error {
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
}

func finite(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

// WriteJSON writes results as one indented JSON array.
func WriteJSON(w io.Writer, rs []Result) error {
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
		out = append(out, jsonResult{
			Benchmark: r.Benchmark, Mode: mode, Params: params,
			NsPerOp: finite(r.Score), NsPerOpError: finite(r.Error),
			AllocBytesPerOp: r.BytesPerOp, AllocsPerOp: r.AllocsPerOp,
			Min: finite(r.Min), Max: finite(r.Max),
			Samples: len(r.Samples), Forks: r.Forks, Threads: r.Threads, RawNsPerOp: raw,
		})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// WriteBenchfmt writes one Go benchmark-format line per measurement
// iteration (benchstat wants the individual samples, not the mean):
//
//	BenchmarkGet/keys=1000/threads=1-8  1234567  12.3 ns/op  64 B/op  1 allocs/op
//
// preceded by goos/goarch configuration lines.
func WriteBenchfmt(w io.Writer, rs []Result) error {
	var sb strings.Builder
	fmt.Fprintf(&sb, "goos: %s\ngoarch: %s\n", runtime.GOOS, runtime.GOARCH)
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

// benchfmtName builds "Benchmark<Name>/k=v/threads=T[-GOMAXPROCS]". The
// first letter is upper-cased and spaces replaced because benchfmt splits
// fields on white space and expects "Benchmark" followed by a non-lowercase
// letter; the -N suffix follows the testing package (omitted when N is 1).
func benchfmtName(r Result) string {
	name := r.Benchmark
	if !strings.HasPrefix(name, "Benchmark") {
		rn, size := utf8.DecodeRuneInString(name)
		name = "Benchmark" + string(unicode.ToUpper(rn)) + name[size:]
	}
	var sb strings.Builder
	sb.WriteString(name)
	for _, p := range reportParams(r) {
		sb.WriteString("/" + p.Key + "=" + p.Value)
	}
	if procs := runtime.GOMAXPROCS(0); procs > 1 {
		sb.WriteString("-" + strconv.Itoa(procs))
	}
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return '_'
		}
		return r
	}, sb.String())
}

// benchNum prints whole numbers without decimals, others with three.
func benchNum(v float64) string {
	if v == math.Trunc(v) {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'f', 3, 64)
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
	if err := writeAligned(w, rows); err != nil {
		return err
	}
	verdict := "ranges overlap: difference not established"
	if c.Disjoint {
		verdict = "ranges disjoint"
	}
	_, err := fmt.Fprintf(w, "change: %+.2f%% (candidate vs baseline median; %s)\n", c.ChangePct, verdict)
	return err
}
