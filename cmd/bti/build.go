package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/bti-go/bti/partitionindex"
)

const buildUsage = `usage: bti build --in keys.tsv --out Partitions.db [--partitioner P] [--path scratch|reference]
                 [--partial-at N,M,...] [--stats text|json]

Builds the partition index of the keys in keys.tsv (or keys.tsv.bz2). The
output appears only when everything succeeded.

Memory: without --partial-at and --stats the build streams. It reads one
line at a time and writes the index through a 1 MiB buffer into a temporary
file beside --out (or straight to standard output with --out -). It holds the
builder's working set, about 3 MB at 200,000 keys and not growing with the
key count, so any number of keys builds in bounded memory. A bad line, a
failed write or SIGINT/SIGTERM stops it with the cause and the line. --out is
left as it was and the temporary file is removed. With --out -, the bytes
already written stay written. --partial-at and --stats hold every key (about
120 bytes each) and the index in memory: the views are checked against the
keys, and the timing leaves out parsing.

` + outputHelp + `
--partial-at takes an early-open view right after the N-th key was added
(counting from 1), as Cassandra's preemptive open does: buildPartial(0, 0),
then flush and markDataSynced(0), markRowIndexSynced(0),
markPartitionIndexSynced(bytes written). Each view must read back exactly the
first N-1 keys at their positions, in order, and not key N; otherwise the
build fails with exit status 1. A request the builder declines (no key reached
the trie since the previous view, e.g. after key 1) is reported and skipped.
Views change later layout decisions, so the file depends on them.

--stats measures the build alone: keys.tsv is parsed and every key decorated
(token and hash) before the clock starts; the time covers every AddEntry and
Complete into a pre-grown in-memory buffer (and the partial views, if any);
allocations are runtime.MemStats deltas over the same span.
`

func runBuild(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("build", buildUsage)
	in := fs.String("in", "", "input keys.tsv or keys.tsv.bz2 (required)")
	out := fs.String("out", "", "output Partitions.db, or - for standard output (required)")
	part := addPartitionerFlag(fs, false)
	pathName := fs.String("path", "scratch", "builder path: scratch or reference (identical files)")
	partialAt := fs.String("partial-at", "", "comma-separated key counts after which to take an early-open view")
	stats := fs.String("stats", "", "print build statistics: text or json")
	if err := parseCommand(fs, args, stdout, "in", "out"); err != nil {
		return err
	}
	p, err := parsePartitioner(*part)
	if err != nil {
		return err
	}
	path, err := partitionindex.ParsePath(*pathName)
	if err != nil {
		return usagef("--path %q: want scratch or reference", *pathName)
	}
	if *stats != "" {
		if err := oneOf("stats", *stats, "text", "json"); err != nil {
			return err
		}
	}
	requests, err := parsePartialAt(*partialAt)
	if err != nil {
		return err
	}
	if *out == "-" && *stats != "" {
		return usagef("--stats prints to standard output, which --out - already holds the index")
	}
	// Opened first, so a refused output (a directory, the input itself)
	// fails before the work. The output is a temporary file beside --out
	// until the build succeeded (the deferred abort removes it otherwise).
	o, err := createOutput(*out, stdout, *in)
	if err != nil {
		return err
	}
	defer o.abort()

	prog := newProgress(stderr)
	if len(requests) == 0 && *stats == "" {
		// The common case streams: nothing held but the builder's working
		// set, whatever the key count (build_stream.go).
		if _, err := streamBuild(*in, o, partitionindex.Options{Partitioner: p, Path: path}, prog); err != nil {
			return err
		}
		return o.commit()
	}
	ks, err := loadKeys(*in, p, prog)
	if err != nil {
		return err
	}
	if n := len(requests); n > 0 && requests[n-1] > len(ks.keys) {
		return usagef("--partial-at %d: %s has only %d keys", requests[n-1], *in, len(ks.keys))
	}

	res, err := buildIndex(ks, partitionindex.Options{Partitioner: p, Path: path}, requests, prog)
	if err != nil {
		return err
	}
	for _, r := range res.partials {
		if !r.accepted {
			fmt.Fprintf(stderr, "bti build: early-open request after key %d declined (no key reached the trie since the previous view)\n", r.after)
		}
	}
	if err := checkPartials(ks, res, stderr); err != nil {
		return err
	}
	if _, err := o.Write(res.data); err != nil {
		return err
	}
	if err := o.commit(); err != nil {
		return err
	}
	switch *stats {
	case "json":
		return writeStatsJSON(stdout, res.stats(ks, path))
	case "text":
		return writeStatsText(stdout, res.stats(ks, path))
	}
	return nil
}

// parsePartialAt parses "N,M,..." into sorted, distinct key counts >= 1.
func parsePartialAt(s string) ([]int, error) {
	if s == "" {
		return nil, nil
	}
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return nil, usagef("--partial-at: %q is not a key count >= 1", f)
		}
		out = append(out, n)
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// partialRequest is one early-open request and what came of it.
type partialRequest struct {
	after    int  // keys added before the request
	accepted bool // BuildPartial took it
	view     *partitionindex.PartialIndex
	fileLen  int // bytes written to the file when the view became ready
}

// buildResult is one measured build.
type buildResult struct {
	data       []byte
	root       int64
	elapsed    time.Duration
	allocBytes uint64
	allocs     uint64
	partials   []partialRequest
}

// buildIndex builds the index of ks into memory. Only the build is measured:
// the keys are already parsed and decorated.
func buildIndex(ks *keySet, opts partitionindex.Options, requests []int, prog *progress) (*buildResult, error) {
	n := len(ks.keys)
	var buf bytes.Buffer
	buf.Grow(16*n + int(ks.raw/4) + 1<<17)
	b := partitionindex.NewBuilder(&buf, opts)
	res := &buildResult{partials: make([]partialRequest, len(requests))}
	next := 0 // next request

	var m0, m1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	start := time.Now()
	for i := range ks.keys {
		if err := b.AddEntry(&ks.keys[i], ks.pos[i]); err != nil {
			return nil, fmt.Errorf("%s line %d: %w", ks.name, lineOf(i), err)
		}
		for next < len(requests) && requests[next] == i+1 {
			if err := takePartial(b, &buf, &res.partials[next], i+1); err != nil {
				return nil, err
			}
			next++
		}
		if prog.enabled() && i&0xFFFF == 0 {
			prog.update("building: %d/%d keys", i, n)
		}
	}
	meta, err := b.Complete()
	if err != nil {
		return nil, err
	}
	res.elapsed = time.Since(start)
	runtime.ReadMemStats(&m1)
	prog.done()
	res.root = meta.Root
	res.data = buf.Bytes()
	res.allocBytes = m1.TotalAlloc - m0.TotalAlloc
	res.allocs = m1.Mallocs - m0.Mallocs
	return res, nil
}

// takePartial makes an early-open request as the golden cases did, with all
// three files synced at once (BuildPartialSynced), so an accepted view is
// ready before the next key.
func takePartial(b *partitionindex.Builder, buf *bytes.Buffer, r *partialRequest, after int) error {
	r.after = after
	view, err := b.BuildPartialSynced(0, 0)
	if err != nil {
		return fmt.Errorf("early-open request after key %d: %w", after, err)
	}
	r.view, r.accepted, r.fileLen = view, view != nil, buf.Len()
	return nil
}

// checkPartials checks every accepted view: it holds exactly the first
// after-1 keys, each found at its position and listed in order by a scan,
// and key number after is not found at its position.
func checkPartials(ks *keySet, res *buildResult, stderr io.Writer) error {
	failed := 0
	for _, r := range res.partials {
		if !r.accepted {
			continue
		}
		if err := checkPartial(ks, res.data[:r.fileLen], r); err != nil {
			var cf *checkFailed
			if !errors.As(err, &cf) {
				return err
			}
			fmt.Fprintf(stderr, "bti build: %v\n", err)
			failed++
		}
	}
	if failed > 0 {
		return &checkFailed{fmt.Sprintf("%d of %d early-open views failed their checks", failed, len(res.partials))}
	}
	return nil
}

func checkPartial(ks *keySet, file []byte, r partialRequest) error {
	ix, err := r.view.NewIndex(file)
	if err != nil {
		return &checkFailed{fmt.Sprintf("view after key %d: %v", r.after, err)}
	}
	rd, err := ix.OpenReader()
	if err != nil {
		return err
	}
	defer rd.Close()
	want := r.after - 1
	if ix.Count() != int64(want) {
		return &checkFailed{fmt.Sprintf("view after key %d holds %d keys, want %d", r.after, ix.Count(), want)}
	}
	// The first mismatch fails the view; a key is named by its line alone.
	var first string
	err = ix.VerifyEntries(ks.keys[:want], ks.pos[:want], func(m partitionindex.Mismatch) bool {
		if m.Kind == partitionindex.MismatchGet {
			first = fmt.Sprintf("key %s (line %d): %s, want position %d", shortHex(ks.keys[m.Entry].Raw), lineOf(m.Entry), describeHit(m.Got, m.Found), m.Want)
		} else {
			first = describeMismatch(m, ks.name, nil)
		}
		return false
	})
	var ve *partitionindex.VerifyError
	switch {
	case errors.As(err, &ve) && ve.Entry >= 0:
		return &checkFailed{fmt.Sprintf("view after key %d: key %s (line %d): %v", r.after, shortHex(ks.keys[ve.Entry].Raw), lineOf(ve.Entry), ve.Err)}
	case err != nil:
		return fmt.Errorf("view after key %d: %w", r.after, err)
	case first != "":
		return &checkFailed{fmt.Sprintf("view after key %d: %s", r.after, first)}
	}
	if pos, ok, err := rd.Get(&ks.keys[want]); err != nil {
		return &checkFailed{fmt.Sprintf("view after key %d: key %s (line %d): %v", r.after, shortHex(ks.keys[want].Raw), lineOf(want), err)}
	} else if ok && pos == ks.pos[want] {
		return &checkFailed{fmt.Sprintf("view after key %d: key %s (line %d) is found at %d but has not reached the trie", r.after, shortHex(ks.keys[want].Raw), lineOf(want), pos)}
	}
	return nil
}

func describeHit(pos int64, ok bool) string {
	if !ok {
		return "not found"
	}
	return "found at " + describePosition(pos)
}

// describePosition says which file and offset a position points to.
func describePosition(pos int64) string {
	file := "Rows.db"
	if partitionindex.IsDataPosition(pos) {
		file = "Data.db"
	}
	return fmt.Sprintf("%d (%s offset %d)", pos, file, partitionindex.PositionOffset(pos))
}

// buildStats is what --stats prints.
type buildStats struct {
	Keys              int     `json:"keys"`
	IndexBytes        int     `json:"index_bytes"`
	Path              string  `json:"path"`
	Partitioner       string  `json:"partitioner"`
	Root              int64   `json:"root"`
	BuildNs           int64   `json:"build_ns"`
	BuildNsPerKey     float64 `json:"build_ns_per_key"`
	AllocBytes        uint64  `json:"alloc_bytes"`
	AllocBytesPerKey  float64 `json:"alloc_bytes_per_key"`
	Allocs            uint64  `json:"allocs"`
	AllocsPerKey      float64 `json:"allocs_per_key"`
	IndexBytesPerKey  float64 `json:"index_bytes_per_key"`
	PartialsRequested int     `json:"partials_requested"`
	PartialsAccepted  int     `json:"partials_accepted"`
}

func (r *buildResult) stats(ks *keySet, path partitionindex.Path) buildStats {
	n := len(ks.keys)
	per := func(v float64) float64 {
		if n == 0 {
			return 0
		}
		return v / float64(n)
	}
	s := buildStats{
		Keys: n, IndexBytes: len(r.data), Path: path.String(), Root: r.root,
		BuildNs: r.elapsed.Nanoseconds(), BuildNsPerKey: per(float64(r.elapsed.Nanoseconds())),
		AllocBytes: r.allocBytes, AllocBytesPerKey: per(float64(r.allocBytes)),
		Allocs: r.allocs, AllocsPerKey: per(float64(r.allocs)),
		IndexBytesPerKey:  per(float64(len(r.data))),
		PartialsRequested: len(r.partials),
	}
	if n > 0 {
		s.Partitioner = ks.keys[0].Partitioner.String()
	}
	for _, p := range r.partials {
		if p.accepted {
			s.PartialsAccepted++
		}
	}
	return s
}

func writeStatsJSON(w io.Writer, s buildStats) error {
	enc := json.NewEncoder(w)
	return enc.Encode(s)
}

func writeStatsText(w io.Writer, s buildStats) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "keys\t%d\n", s.Keys)
	fmt.Fprintf(tw, "index bytes\t%d\t(%.2f B/key)\n", s.IndexBytes, s.IndexBytesPerKey)
	fmt.Fprintf(tw, "path\t%s\n", s.Path)
	fmt.Fprintf(tw, "root\t%d\n", s.Root)
	fmt.Fprintf(tw, "build time\t%v\t(%.1f ns/key)\n", time.Duration(s.BuildNs), s.BuildNsPerKey)
	fmt.Fprintf(tw, "allocated\t%d B\t(%.2f B/key)\n", s.AllocBytes, s.AllocBytesPerKey)
	fmt.Fprintf(tw, "allocations\t%d\t(%.4f allocs/key)\n", s.Allocs, s.AllocsPerKey)
	if s.PartialsRequested > 0 {
		fmt.Fprintf(tw, "early-open views\t%d of %d requests accepted\n", s.PartialsAccepted, s.PartialsRequested)
	}
	return tw.Flush()
}
