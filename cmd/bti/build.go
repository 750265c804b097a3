package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/bti-go/bti/audit"
	"github.com/bti-go/bti/internal/buildpath"
	"github.com/bti-go/bti/internal/workload"
	"github.com/bti-go/bti/partitioner"
	"github.com/bti-go/bti/partitionindex"
)

const buildUsage = `usage: bti build --in keys.tsv --out Partitions.db [--partitioner P] [--path scratch|reference]
                 [--partial-at N,M,...] [--stats text|json] [--hold-keys]

Builds the partition index of the keys in keys.tsv (or keys.tsv.bz2). The
output appears only when everything succeeded.

Memory: the build streams. It reads one line at a time and writes the index
through a 1 MiB buffer into a temporary file beside --out (or straight to
standard output with --out -). It holds the builder's working set, about
3 MB at 200,000 keys and not growing with the key count, so any number of
keys builds in bounded memory. A bad line, a failed write or SIGINT/SIGTERM
stops it with the cause and the line. --out is left as it was and the
temporary file is removed. With --out -, the bytes already written stay
written. --partial-at streams as well: the views are checked after the
build on a second pass over keys.tsv against the file written, read back,
holding only the views' readers. Two cases hold every key (about 120 bytes
each) and the index in memory: --stats (unless --hold-keys=false), so that
its clock covers the build alone, and --partial-at with --out - (standard
output cannot be read back). --hold-keys forces that path.

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
(token and hash) before the clock starts; the time covers every Add and
Complete into a pre-grown in-memory buffer (and the partial views, if any);
allocations are runtime.MemStats deltas over the same span. With
--hold-keys=false it streams instead, and the time and allocations cover
the whole stream: reading and decoding keys.tsv, every Add and
Complete, and the writes into the temporary file (not its final sync and
rename, nor the views' check).
`

func runBuild(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("build", buildUsage)
	in := fs.String("in", "", "input keys.tsv or keys.tsv.bz2 (required)")
	out := fs.String("out", "", "output Partitions.db, or - for standard output (required)")
	part := addPartitionerFlag(fs, false)
	pathName := fs.String("path", "scratch", "builder path: scratch or reference (identical files)")
	partialAt := fs.String("partial-at", "", "comma-separated key counts after which to take an early-open view")
	stats := fs.String("stats", "", "print build statistics: text or json")
	holdKeys := fs.Bool("hold-keys", false, "read every key into memory first (the default with --stats); false streams")
	if err := parseCommand(fs, args, stdout, "in", "out"); err != nil {
		return err
	}
	p, err := parsePartitioner(*part)
	if err != nil {
		return err
	}
	path, err := buildpath.Parse(*pathName)
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
	opts := partitionindex.Options{Partitioner: p}
	hold := *stats != "" // --stats measures the build alone unless told
	fs.Visit(func(f *flag.Flag) {
		if f.Name == "hold-keys" {
			hold = *holdKeys
		}
	})
	if !hold && len(requests) > 0 && o.tmp == "" {
		// The views are checked against the file written, read back:
		// standard output or a device cannot be.
		hold = true
	}
	if !hold {
		// Streams: nothing held but the builder's working set, whatever the
		// key count (build_stream.go).
		res, err := streamBuild(*in, o, opts, path, requests, prog)
		if err != nil {
			return err
		}
		reportDeclined(res.partials, stderr)
		if len(requests) > 0 {
			file, unmap, err := mapFile(o.tmp)
			if err != nil {
				return err
			}
			err = checkStreamedPartials(*in, p, file, res.partials, stderr)
			if uerr := unmap(); err == nil {
				err = uerr
			}
			if err != nil {
				return err
			}
		}
		if err := o.commit(); err != nil {
			return err
		}
		return writeStats(stdout, *stats, res.stats(int(res.count), int(res.size), p, path))
	}
	ks, err := loadKeys(*in, p, prog)
	if err != nil {
		return err
	}
	if n := len(requests); n > 0 && requests[n-1] > len(ks.keys) {
		return usagef("--partial-at %d: %s has only %d keys", requests[n-1], *in, len(ks.keys))
	}

	res, err := buildIndex(ks, opts, path, requests, prog)
	if err != nil {
		return err
	}
	reportDeclined(res.partials, stderr)
	if err := checkPartials(ks, res, stderr); err != nil {
		return err
	}
	if _, err := o.Write(res.data); err != nil {
		return err
	}
	if err := o.commit(); err != nil {
		return err
	}
	return writeStats(stdout, *stats, res.stats(len(ks.keys), len(res.data), p, path))
}

// reportDeclined says which early-open requests the builder declined.
func reportDeclined(partials []partialRequest, stderr io.Writer) {
	for _, r := range partials {
		if !r.accepted {
			fmt.Fprintf(stderr, "bti build: early-open request after key %d declined (no key reached the trie since the previous view)\n", r.after)
		}
	}
}

// writeStats prints s as --stats asks: "json", "text", or nothing ("").
func writeStats(w io.Writer, format string, s buildStats) error {
	switch format {
	case "json":
		return writeStatsJSON(w, s)
	case "text":
		return writeStatsText(w, s)
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
func buildIndex(ks *keySet, opts partitionindex.Options, path buildpath.Path, requests []int, prog *progress) (*buildResult, error) {
	n := len(ks.keys)
	var buf bytes.Buffer
	buf.Grow(16*n + int(ks.raw/4) + 1<<17)
	b := workload.NewPathBuilder(&buf, opts, path)
	res := &buildResult{partials: make([]partialRequest, len(requests))}
	next := 0 // next request

	var m0, m1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	start := time.Now()
	for i := range ks.keys {
		if err := b.Add(&ks.keys[i], ks.pos[i]); err != nil {
			return nil, fmt.Errorf("%s line %d: %w", ks.name, lineOf(i), err)
		}
		for next < len(requests) && requests[next] == i+1 {
			if err := takePartial(b, buf.Len, &res.partials[next], i+1); err != nil {
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
func takePartial(b *workload.PathBuilder, written func() int, r *partialRequest, after int) error {
	r.after = after
	view, err := b.BuildPartialSynced(0, 0)
	if err != nil {
		return fmt.Errorf("early-open request after key %d: %w", after, err)
	}
	r.view, r.accepted, r.fileLen = view, view != nil, written()
	return nil
}

// checkPartials checks every accepted view of a held build: it holds
// exactly the first after-1 keys, each found at its position and listed in
// order by a scan, and key number after is not found at its position.
func checkPartials(ks *keySet, res *buildResult, stderr io.Writer) error {
	checks, err := openViewChecks(res.data, res.partials, ks.name)
	defer closeViewChecks(checks)
	if err != nil {
		return err
	}
	for i := range ks.keys {
		if !feedViewChecks(checks, i, &ks.keys[i], ks.pos[i]) {
			break
		}
	}
	return viewVerdicts(checks, len(res.partials), stderr)
}

// openViewChecks opens a viewCheck for every accepted view over the
// prefix of file it covers.
func openViewChecks(file []byte, partials []partialRequest, name string) ([]*viewCheck, error) {
	var checks []*viewCheck
	for _, r := range partials {
		if !r.accepted {
			continue
		}
		c, err := newViewCheck(r, file[:r.fileLen], name)
		if err != nil {
			return checks, err
		}
		checks = append(checks, c)
	}
	return checks, nil
}

func closeViewChecks(checks []*viewCheck) {
	for _, c := range checks {
		c.close()
	}
}

// feedViewChecks gives key i to every view; false once none needs more.
func feedViewChecks(checks []*viewCheck, i int, key *partitioner.Key, pos int64) bool {
	open := false
	for _, c := range checks {
		c.add(i, key, pos)
		open = open || !c.finished()
	}
	return open
}

// viewVerdicts prints every failed view and fails the build if any did;
// requested counts the views asked for, declined ones included.
func viewVerdicts(checks []*viewCheck, requested int, stderr io.Writer) error {
	failed := 0
	for _, c := range checks {
		if err := c.result(); err != nil {
			var cf *checkFailed
			if !errors.As(err, &cf) {
				return err
			}
			fmt.Fprintf(stderr, "bti build: %v\n", err)
			failed++
		}
	}
	if failed > 0 {
		return &checkFailed{fmt.Sprintf("%d of %d early-open views failed their checks", failed, requested)}
	}
	return nil
}

// viewCheck checks one early-open view against the keys fed to it in
// order, from the first: it must hold exactly the first after-1 keys, each
// found at its position and listed in order by a scan (an EntryVerifier),
// and key number after must not be found at its position. The first
// mismatch fails the view. It holds the view's readers and no key, so the
// streamed build checks its views on a second pass over keys.tsv.
type viewCheck struct {
	r    partialRequest
	name string // keys.tsv, for messages
	ix   *partitionindex.Index
	rd   *partitionindex.Reader
	v    *audit.EntryVerifier
	cur  []byte // the key being added, for a mismatch's message
	line int
	fail error // the first failure
	done bool
}

// newViewCheck opens the view over file, the bytes written when it was
// taken; a view that cannot be opened, or holds the wrong number of keys,
// fails at once (result).
func newViewCheck(r partialRequest, file []byte, name string) (*viewCheck, error) {
	c := &viewCheck{r: r, name: name}
	ix, err := r.view.NewIndex(file)
	if err != nil {
		c.fail, c.done = &checkFailed{fmt.Sprintf("view after key %d: %v", r.after, err)}, true
		return c, nil
	}
	c.ix = ix
	if want := r.after - 1; ix.Count() != int64(want) {
		c.fail, c.done = &checkFailed{fmt.Sprintf("view after key %d holds %d keys, want %d", r.after, ix.Count(), want)}, true
		return c, nil
	}
	if c.rd, err = ix.OpenReader(); err != nil {
		return nil, err
	}
	c.v, err = audit.NewEntryVerifier(ix, func(m audit.Mismatch) bool {
		if m.Kind == audit.MismatchGet {
			c.fail = &checkFailed{fmt.Sprintf("view after key %d: key %s (line %d): %s, want position %d", r.after, shortHex(c.cur), c.line, describeHit(m.Got, m.Found), m.Want)}
		} else {
			c.fail = &checkFailed{fmt.Sprintf("view after key %d: %s", r.after, describeMismatch(m, name, nil))}
		}
		return false
	})
	if err != nil {
		c.rd.Close()
		return nil, err
	}
	return c, nil
}

// finished reports whether the view needs no more keys.
func (c *viewCheck) finished() bool { return c.done }

// add feeds key i (0-based: keys.tsv line i+1).
func (c *viewCheck) add(i int, key *partitioner.Key, pos int64) {
	if c.done {
		return
	}
	c.cur, c.line = key.Raw, lineOf(i)
	if i < c.r.after-1 {
		if err := c.v.Add(key, pos); err != nil {
			c.fail, c.done = c.readFailure(err), true
		} else if c.v.Stopped() {
			c.done = true
		}
		return
	}
	// Key number after: the view is complete without it, and must not find
	// it where it lies.
	c.done = true
	if err := c.v.Finish(); err != nil {
		c.fail = c.readFailure(err)
		return
	}
	if c.fail != nil {
		return
	}
	if got, ok, err := c.rd.Get(key); err != nil {
		c.fail = &checkFailed{fmt.Sprintf("view after key %d: key %s (line %d): %v", c.r.after, shortHex(key.Raw), c.line, err)}
	} else if ok && got == pos {
		c.fail = &checkFailed{fmt.Sprintf("view after key %d: key %s (line %d) is found at %d but has not reached the trie", c.r.after, shortHex(key.Raw), c.line, got)}
	}
}

func (c *viewCheck) readFailure(err error) error {
	var ve *audit.VerifyError
	if errors.As(err, &ve) && ve.Entry >= 0 {
		return &checkFailed{fmt.Sprintf("view after key %d: key %s (line %d): %v", c.r.after, shortHex(c.cur), c.line, ve.Err)}
	}
	return fmt.Errorf("view after key %d: %w", c.r.after, err)
}

// result is the view's verdict once it has seen its keys: nil, a
// *checkFailed, or an error reading it.
func (c *viewCheck) result() error {
	if !c.done {
		return fmt.Errorf("view after key %d: checked with only %d keys", c.r.after, c.line)
	}
	return c.fail
}

func (c *viewCheck) close() {
	if c.v != nil {
		c.v.Close()
	}
	if c.rd != nil {
		c.rd.Close()
	}
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

// stats summarises a build of n keys into size bytes.
func (r *buildResult) stats(n, size int, p partitioner.Partitioner, path buildpath.Path) buildStats {
	per := func(v float64) float64 {
		if n == 0 {
			return 0
		}
		return v / float64(n)
	}
	s := buildStats{
		Keys: n, IndexBytes: size, Path: path.String(), Root: r.root,
		BuildNs: r.elapsed.Nanoseconds(), BuildNsPerKey: per(float64(r.elapsed.Nanoseconds())),
		AllocBytes: r.allocBytes, AllocBytesPerKey: per(float64(r.allocBytes)),
		Allocs: r.allocs, AllocsPerKey: per(float64(r.allocs)),
		IndexBytesPerKey:  per(float64(size)),
		PartialsRequested: len(r.partials),
	}
	if n > 0 {
		s.Partitioner = p.String()
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
