package partitionindex

import (
	"bytes"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/bti-go/bti/internal/buildpath"
	"github.com/bti-go/bti/partitioner"
	"github.com/bti-go/bti/trie"
)

// The exhaustive small-universe test (issue 21, item 5): every set of up to
// maxKeys keys drawn from all keys of length 1..maxLen over a small
// alphabet holding 00 and FF, under every partitioner and several tiny page
// sizes, built on both builder paths, with every answer checked against a
// model computed from the keys alone:
//
//   - both paths write the same bytes (the audit package's
//     TestCheckExhaustive runs its check over the short universe);
//   - Get of a probe returns the entry whose stored prefix (docs/format.md
//     §2.5) is a prefix of the probe's encoding when its hash byte equals
//     the probe's, and nothing otherwise (stored prefixes are prefix-free,
//     so at most one entry qualifies);
//   - CeilingCandidates and FloorCandidates return as OnPath exactly that
//     entry (hash byte or not), and as Beyond the nearest other entry
//     strictly on the wanted side; Ceiling and Floor equal the model's;
//   - First, Last, Count and the footer keys equal the model's;
//   - Scan and ScanReverse yield the entries in range plus at most one
//     neighbour outside each bound that is not a key, and only one whose
//     stored prefix is a prefix of that bound (the reason the Iterator doc
//     gives for it); nothing when start is after end.
//
// Probes are every key of the universe, the empty key (Cassandra has no
// empty partition key and the builder does not refuse one, but none is in
// a set here; as a probe it sorts first under every partitioner), and for
// each key of the set its extensions by 00, 7F and FF, its twin (an
// extension with the same hash byte, so that Get has false positives to
// return) and its last byte moved by one either way. TestExhaustive scans
// between every pair of nil, the empty key and the probes derived from the
// set's keys, and between each other probe and nil;
// TestExhaustiveAllBoundPairs between every pair of probes and nil, over
// the smallest universe.
//
// Sizes (TestExhaustiveUniverseSizes pins them): -short takes keys of
// length 1..2 over {00, 80, FF}; plain go test keys of length 1..3 over
// the same alphabet; BTI_LONG=1 keys of length 1..3 over {00, 01, 80, FF}.
// Of the sets of three or four keys each takes a deterministic sample
// (stride; BTI_EXHAUSTIVE_STRIDE=1 takes every set). The first failure in
// set order is reported, whatever the scheduling of the workers; to rerun
// its set alone, BTI_EXHAUSTIVE_KEYS='{hex,hex,...}' (the form failure
// messages print; '{}' is the empty index).

type exhaustiveUniverse struct {
	name      string
	alphabet  []byte
	maxLen    int
	maxKeys   int
	pageSizes []int
	// stride > 1 takes, of the sets of three keys or more, only those whose
	// rank among the sets of their size is the partitioner's number modulo
	// stride: a deterministic sample, a different one per partitioner.
	stride int
	// allBounds: scans take every pair of probes as bounds; otherwise
	// every pair of the probes near the set's keys, and every probe with
	// nil (see newExPlan).
	allBounds bool
}

// Page sizes: the trie of up to four of these keys is a few dozen bytes
// (the test logs the range), so 16, 24 and 32 put page breaks (padding)
// into many files (the test logs how many) and 0 (4096) into none. The
// audit package's TestCheckExhaustive checks its page rules at the same
// sizes.
var exhaustivePageSizes = []int{16, 24, 32, 0}

// The universes (TestExhaustiveUniverseSizes pins their sizes).
// BTI_EXHAUSTIVE_STRIDE overrides the stride (1: every set). Sets checked
// a partitioner and wall time, go test -run TestExhaustive -v
// ./partitionindex on 2 shared cores at edfdeb7:
//
//	short  258 sets             2.8 s  (-short)
//	ci     3251 sets            28 s
//	pairs  258 sets, all pairs  2.6 s; 794 sets 7.4 s with BTI_LONG=1
//	long   46653 sets           751 s  (BTI_LONG=1; every one of its
//	                                   2028356 sets would take some 43
//	                                   times as long)
var (
	exhaustiveShort = exhaustiveUniverse{"short", []byte{0x00, 0x80, 0xFF}, 2, 4, exhaustivePageSizes, 4, false}
	exhaustiveCI    = exhaustiveUniverse{"ci", []byte{0x00, 0x80, 0xFF}, 3, 4, exhaustivePageSizes, 37, false}
	exhaustiveLong  = exhaustiveUniverse{"long", []byte{0x00, 0x01, 0x80, 0xFF}, 3, 4, exhaustivePageSizes, 47, false}
	exhaustivePairs = exhaustiveUniverse{"pairs", []byte{0x00, 0x80, 0xFF}, 2, 4, exhaustivePageSizes, 4, true}
)

// sample returns the sets partitioner number p takes (see stride).
func (u exhaustiveUniverse) sample(sets [][]uint8, p int) [][]uint8 {
	if u.stride <= 1 {
		return sets
	}
	var out [][]uint8
	rank := map[int]int{} // sets of each size seen so far
	for _, set := range sets {
		r := rank[len(set)]
		rank[len(set)]++
		if len(set) < 3 || r%u.stride == p%u.stride {
			out = append(out, set)
		}
	}
	return out
}

// keys returns every key of length 1..maxLen over the alphabet, shortest
// first, each length in alphabet order.
func (u exhaustiveUniverse) keys() [][]byte {
	var out [][]byte
	level := [][]byte{nil}
	for range u.maxLen {
		var next [][]byte
		for _, k := range level {
			for _, c := range u.alphabet {
				next = append(next, append(slices.Clone(k), c))
			}
		}
		out = append(out, next...)
		level = next
	}
	return out
}

// sets returns every subset of up to maxKeys of n universe keys, as
// universe indexes in increasing order: the empty set, then by size.
func (u exhaustiveUniverse) sets(n int) [][]uint8 {
	out := [][]uint8{{}}
	var rec func(set []uint8, from, size int)
	rec = func(set []uint8, from, size int) {
		if len(set) == size {
			out = append(out, slices.Clone(set))
			return
		}
		for i := from; i < n; i++ {
			rec(append(set, uint8(i)), i+1, size)
		}
	}
	for size := 1; size <= u.maxKeys; size++ {
		rec(nil, 0, size)
	}
	return out
}

// exCase names one build for messages.
type exCase struct {
	set      *exSet
	pageSize int
}

func (c exCase) String() string {
	return fmt.Sprintf("set %s partitioner %v page %d (paths scratch and reference, identical files)", c.set.name(), c.set.p, c.pageSize)
}

// buildEx builds the set on both paths and returns the file; the paths
// must agree.
func buildEx(c exCase) ([]byte, error) {
	var files [2][]byte
	for i, path := range buildpath.All {
		var buf bytes.Buffer
		b := newPathBuilder(&buf, Options{Partitioner: c.set.p, PageSize: c.pageSize}, path)
		for j := range c.set.entries {
			e := &c.set.entries[j]
			if err := b.Add(&e.key, e.pos); err != nil {
				return nil, fmt.Errorf("%v path %v: Add %x: %w", c, path, e.key.Raw, err)
			}
		}
		if _, err := b.Complete(); err != nil {
			return nil, fmt.Errorf("%v path %v: Complete: %w", c, path, err)
		}
		files[i] = buf.Bytes()
	}
	if !bytes.Equal(files[0], files[1]) {
		return nil, fmt.Errorf("%v: scratch path wrote %x, reference path %x", c, files[0], files[1])
	}
	return files[0], nil
}

// exStats counts what the universe exercised, so the test can require
// that it reaches what it claims to.
type exStats struct {
	builds, probes, scans int64
	nodeTypes             map[string]int64
	paddedFiles           int64 // files whose trie crosses a page break (where the writer pads)
	minSize, maxSize      int64 // trie bytes (FirstKeyPos)
	getFalsePositives     int64 // absent probes Get found (hash byte matched)
	getHashRejects        int64 // absent probes on a stored prefix, hash byte differed
	wrongSideOnPath       int64 // OnPath candidates on the wrong side
	scanExtras            int64 // neighbours a scan yielded outside a bound
}

func (a *exStats) add(b *exStats) {
	if b.builds > 0 && (a.builds == 0 || b.minSize < a.minSize) {
		a.minSize = b.minSize
	}
	a.builds += b.builds
	a.probes += b.probes
	a.scans += b.scans
	a.paddedFiles += b.paddedFiles
	a.maxSize = max(a.maxSize, b.maxSize)
	a.getFalsePositives += b.getFalsePositives
	a.getHashRejects += b.getHashRejects
	a.wrongSideOnPath += b.wrongSideOnPath
	a.scanExtras += b.scanExtras
	for k, v := range b.nodeTypes {
		a.nodeTypes[k] += v
	}
}

// checkEx builds the plan's set at one page size and checks every answer.
func checkEx(c exCase, pl *exPlan, st *exStats) error {
	file, err := buildEx(c)
	if err != nil {
		return err
	}
	st.builds++
	s := c.set
	ix, err := NewIndex(file, OpenOptions{Partitioner: s.p})
	if err != nil {
		return fmt.Errorf("%v: NewIndex: %w", c, err)
	}
	defer ix.Close()
	// The audit package's TestCheckExhaustive runs its check over the same
	// alphabet and page sizes; here a walk over the trie's node accessor
	// counts the nodes.
	if err := countNodeTypes(ix.Trie(), ix.Root(), st.nodeTypes); err != nil {
		return fmt.Errorf("%v: counting node types: %w", c, err)
	}
	size := ix.FirstKeyPos() // the trie's bytes: nodes and padding
	page := int64(c.pageSize)
	if page == 0 {
		page = trie.DefaultPageSize
	}
	if size > page {
		st.paddedFiles++ // the trie crosses a page break, where the writer pads
	}
	if st.builds == 1 || size < st.minSize {
		st.minSize = size
	}
	st.maxSize = max(st.maxSize, size)
	rd, err := ix.OpenReader()
	if err != nil {
		return fmt.Errorf("%v: OpenReader: %w", c, err)
	}
	defer rd.Close()

	n := len(s.entries)
	if ix.Count() != int64(n) {
		return fmt.Errorf("%v: Count %d, want %d", c, ix.Count(), n)
	}
	var wantFirst, wantLast []byte
	if n > 0 {
		wantFirst, wantLast = s.entries[0].key.Raw, s.entries[n-1].key.Raw
	}
	if !bytes.Equal(ix.FirstKey(), wantFirst) || !bytes.Equal(ix.LastKey(), wantLast) {
		return fmt.Errorf("%v: footer keys %x, %x, want %x, %x", c, ix.FirstKey(), ix.LastKey(), wantFirst, wantLast)
	}
	for _, end := range []struct {
		name string
		f    func() (int64, bool, error)
		want int
	}{{"First", rd.First, 0}, {"Last", rd.Last, n - 1}} {
		pos, ok, err := end.f()
		if err != nil {
			return fmt.Errorf("%v: %s: %w", c, end.name, err)
		}
		if ok != (n > 0) || (ok && pos != s.entries[end.want].pos) {
			return fmt.Errorf("%v: %s = (%d, %v), want entry %d", c, end.name, pos, ok, end.want)
		}
	}

	for i := range pl.probes {
		if err := checkExProbe(c, pl, i, rd, st); err != nil {
			return err
		}
	}
	st.probes += int64(len(pl.probes))

	var got []int64
	for _, pair := range pl.pairs {
		lb, hb := pair[0], pair[1]
		var lk, hk *partitioner.Key
		if lb >= 0 {
			lk = &pl.probes[lb].key
		}
		if hb >= 0 {
			hk = &pl.probes[hb].key
		}
		for _, reverse := range []bool{false, true} {
			it := rd.Scan(lk, hk)
			if reverse {
				it = rd.ScanReverse(lk, hk)
			}
			got = got[:0]
			for it.Next() {
				got = append(got, it.Pos())
			}
			err := it.Err()
			if err == nil {
				if reverse {
					slices.Reverse(got)
				}
				err = pl.checkScan(lb, hb, got, st)
			}
			if err != nil {
				return fmt.Errorf("%v: scan [%s, %s] reverse=%v: %w", c, exBoundName(lk), exBoundName(hk), reverse, err)
			}
			st.scans++
		}
	}
	return nil
}

// exBoundName names a scan bound: nil, "" for the empty key, else hex.
func exBoundName(k *partitioner.Key) string {
	switch {
	case k == nil:
		return "nil"
	case len(k.Raw) == 0:
		return `""`
	}
	return fmt.Sprintf("%x", k.Raw)
}

// checkExProbe checks Get, the candidates, Ceiling and Floor of probe i.
func checkExProbe(c exCase, pl *exPlan, i int, rd *Reader, st *exStats) error {
	s := c.set
	pr := &pl.probes[i]
	fail := func(format string, args ...any) error {
		return fmt.Errorf("%v: probe %s: %s", c, exBoundName(&pr.key), fmt.Sprintf(format, args...))
	}
	on := pl.on[i]
	member := on >= 0 && pl.ge[i] == on && pl.le[i] == on

	// Get: the on-path entry if the hash byte matches, else nothing.
	want := pl.get[i]
	pos, ok, err := rd.Get(&pr.key)
	if err != nil {
		return fail("Get: %v", err)
	}
	if ok != (want >= 0) || (ok && pos != s.entries[want].pos) {
		return fail("Get = (%d, %v) (entry %d), want entry %d (on-path entry %d, member %v)", pos, ok, s.rank(pos), want, on, member)
	}
	switch {
	case !member && want >= 0:
		st.getFalsePositives++
	case !member && on >= 0:
		st.getHashRejects++
	}

	for d, dir := range []int{+1, -1} {
		name := "Ceiling"
		wantAns := pl.ge[i]
		var cand Candidates
		if dir > 0 {
			cand, err = rd.CeilingCandidates(&pr.key)
		} else {
			name, wantAns = "Floor", pl.le[i]
			cand, err = rd.FloorCandidates(&pr.key)
		}
		if err != nil {
			return fail("%sCandidates: %v", name, err)
		}
		beyond := pl.beyond[d][i]
		gotOn, gotBeyond := -1, -1
		if cand.HasOnPath {
			gotOn = s.rank(cand.OnPath)
		}
		if cand.HasBeyond {
			gotBeyond = s.rank(cand.Beyond)
		}
		if cand.HasOnPath != (on >= 0) || gotOn != on || cand.HasBeyond != (beyond >= 0) || gotBeyond != beyond {
			return fail("%sCandidates = %+v (OnPath entry %d, Beyond entry %d), want OnPath entry %d, Beyond entry %d", name, cand, gotOn, gotBeyond, on, beyond)
		}
		if on >= 0 && on != wantAns {
			st.wrongSideOnPath++
		}

		if dir > 0 {
			pos, ok, err = rd.Ceiling(&pr.key, s.keyAt)
		} else {
			pos, ok, err = rd.Floor(&pr.key, s.keyAt)
		}
		if err != nil {
			return fail("%s: %v", name, err)
		}
		if ok != (wantAns >= 0) || (ok && pos != s.entries[wantAns].pos) {
			return fail("%s = (%d, %v) (entry %d), want entry %d", name, pos, ok, s.rank(pos), wantAns)
		}
	}
	return nil
}

// parseExKeys parses BTI_EXHAUSTIVE_KEYS into universe indexes, adding
// keys the universe lacks to it.
func parseExKeys(t *testing.T, spec string, uni *[][]byte) []uint8 {
	spec = strings.Trim(spec, "{}")
	set := []uint8{}
	if spec == "" {
		return set // the empty index
	}
	for _, h := range strings.Split(spec, ",") {
		var raw []byte
		if _, err := fmt.Sscanf(h, "%x", &raw); err != nil {
			t.Fatalf("BTI_EXHAUSTIVE_KEYS: %q: %v", h, err)
		}
		i := slices.IndexFunc(*uni, func(k []byte) bool { return bytes.Equal(k, raw) })
		if i < 0 {
			i = len(*uni)
			*uni = append(*uni, raw)
		}
		set = append(set, uint8(i))
	}
	slices.Sort(set)
	return set
}

func TestExhaustive(t *testing.T) {
	u := exhaustiveCI
	switch {
	case os.Getenv("BTI_LONG") != "":
		u = exhaustiveLong
	case testing.Short():
		u = exhaustiveShort
	}
	testExhaustive(t, u)
}

// TestExhaustiveAllBoundPairs scans between every pair of probes, nil
// included, over the short universe (every set of it with BTI_LONG=1).
func TestExhaustiveAllBoundPairs(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: TestExhaustive scans between the pairs near each set's keys")
	}
	u := exhaustivePairs
	if os.Getenv("BTI_LONG") != "" {
		u.stride = 1
	}
	testExhaustive(t, u)
}

func testExhaustive(t *testing.T, u exhaustiveUniverse) {
	if v := os.Getenv("BTI_EXHAUSTIVE_STRIDE"); v != "" {
		if _, err := fmt.Sscan(v, &u.stride); err != nil || u.stride < 1 {
			t.Fatalf("BTI_EXHAUSTIVE_STRIDE=%q: want a positive integer", v)
		}
	}
	uni := u.keys()
	sets := u.sets(len(uni))
	one := false
	if spec := os.Getenv("BTI_EXHAUSTIVE_KEYS"); spec != "" {
		sets, u.stride, one = [][]uint8{parseExKeys(t, spec, &uni)}, 1, true
	}
	t.Logf("universe %s: %d keys of length 1..%d over %x, %d sets of up to %d keys (stride %d for 3 keys or more), page sizes %v, all bounds %v",
		u.name, len(uni), u.maxLen, u.alphabet, len(sets), u.maxKeys, u.stride, u.pageSizes, u.allBounds)
	twins := exTwins(uni)
	total := exStats{nodeTypes: map[string]int64{}}
	for _, p := range []partitioner.Partitioner{partitioner.Murmur3, partitioner.ByteOrdered, partitioner.Random} {
		t.Run(p.String(), func(t *testing.T) {
			uniProbes := make([]exProbe, len(uni))
			for i, raw := range uni {
				uniProbes[i] = newExProbe(p, raw)
			}
			sample := u.sample(sets, int(p))
			st, err := runExhaustive(u, p, uni, sample, uniProbes, twins)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%d sets, %d builds, %d probes, %d scans; node types %v; tries of %d to %d bytes, %d files with page padding; Get: %d hash-byte rejections, %d false positives; %d wrong-side on-path candidates; %d scan extras",
				len(sample), st.builds, st.probes, st.scans, st.nodeTypes, st.minSize, st.maxSize, st.paddedFiles, st.getHashRejects, st.getFalsePositives, st.wrongSideOnPath, st.scanExtras)
			total.add(st)
		})
	}
	if t.Failed() || one {
		return
	}
	// The universe is meant to reach these; a change that stops it from
	// doing so (fewer page breaks, no collisions) should be noticed.
	for _, typ := range []string{"PAYLOAD_ONLY", "SINGLE_NOPAYLOAD_4", "SINGLE_8", "SPARSE_8", "DENSE_12"} {
		if total.nodeTypes[typ] == 0 {
			t.Errorf("no %s node in the universe (node types %v)", typ, total.nodeTypes)
		}
	}
	if total.paddedFiles == 0 || total.getHashRejects == 0 || total.wrongSideOnPath == 0 || total.scanExtras == 0 {
		t.Errorf("the universe missed a case: %d padded files, %d hash-byte rejections, %d wrong-side candidates, %d scan extras",
			total.paddedFiles, total.getHashRejects, total.wrongSideOnPath, total.scanExtras)
	}
}

// runExhaustive checks every set under p at every page size on a worker
// pool. Worker w takes sets w, w+W, ...; on a failure the others stop
// after the sets before the failing one, so the failure reported is the
// first in set order whatever the scheduling.
func runExhaustive(u exhaustiveUniverse, p partitioner.Partitioner, uni [][]byte, sets [][]uint8, uniProbes []exProbe, twins map[string][]byte) (*exStats, error) {
	workers := runtime.GOMAXPROCS(0)
	var firstBad atomic.Int64
	firstBad.Store(int64(len(sets)))
	errs := make([]error, len(sets)) // indexed by set; only failures are set
	stats := make([]exStats, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			st := &stats[w]
			st.nodeTypes = map[string]int64{}
			for i := w; i < len(sets) && int64(i) < firstBad.Load(); i += workers {
				s := newExSet(p, uni, sets[i])
				pl := newExPlan(s, uniProbes, twins, u.allBounds)
				for _, ps := range u.pageSizes {
					if err := checkEx(exCase{set: s, pageSize: ps}, pl, st); err != nil {
						errs[i] = err
						for {
							old := firstBad.Load()
							if int64(i) >= old || firstBad.CompareAndSwap(old, int64(i)) {
								break
							}
						}
						break
					}
				}
			}
		}()
	}
	wg.Wait()
	if bad := firstBad.Load(); bad < int64(len(sets)) {
		return nil, fmt.Errorf("set %d of %d: %w\nrerun: BTI_EXHAUSTIVE_KEYS='%s' go test -run 'TestExhaustive$' ./partitionindex",
			bad, len(sets), errs[bad], newExSet(p, uni, sets[bad]).name())
	}
	total := &exStats{nodeTypes: map[string]int64{}}
	for i := range stats {
		total.add(&stats[i])
	}
	return total, nil
}

// TestExhaustiveUniverseSizes pins the universes' sizes, on which the
// test's cost depends: every set, and the sets each partitioner samples.
// Measured (2 shared cores, at the commit adding this test): -short 3 s,
// plain go test 34 s, BTI_LONG=1 see the commit message.
func TestExhaustiveUniverseSizes(t *testing.T) {
	for _, c := range []struct {
		u          exhaustiveUniverse
		keys, sets int
		sampled    [3]int // Murmur3, ByteOrdered, Random
	}{
		{exhaustiveShort, 12, 1 + 12 + 66 + 220 + 495, [3]int{258, 258, 258}},
		{exhaustiveCI, 39, 1 + 39 + 741 + 9139 + 82251, [3]int{3251, 3251, 3251}},
		{exhaustivePairs, 12, 1 + 12 + 66 + 220 + 495, [3]int{258, 258, 258}},
		{exhaustiveLong, 84, 1 + 84 + 3486 + 95284 + 1929501, [3]int{46653, 46653, 46653}},
	} {
		if testing.Short() && c.u.name == "long" {
			continue // two million sets to enumerate
		}
		uni := c.u.keys()
		if len(uni) != c.keys {
			t.Errorf("%s: %d keys, want %d", c.u.name, len(uni), c.keys)
		}
		sets := c.u.sets(len(uni))
		if len(sets) != c.sets {
			t.Errorf("%s: %d sets, want %d", c.u.name, len(sets), c.sets)
		}
		for p := range 3 {
			if n := len(c.u.sample(sets, p)); n != c.sampled[p] {
				t.Errorf("%s: partitioner %v samples %d sets, want %d", c.u.name, partitioner.Partitioner(p), n, c.sampled[p])
			}
		}
	}
}
