package workload

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/bti-go/bti/jmhstyle"
	"github.com/bti-go/bti/partitioner"
	"github.com/bti-go/bti/partitionindex"
)

// MaxProbes bounds the probe sets (and their memory) of the lookups: up to
// this many distinct keys, cycled.
const MaxProbes = 1 << 18

// lookupData is what the lookup workloads on one set share: the index (in
// memory), the probes and, for the baseline, the sorted encodings. Probes
// are laid out in the order they are used, their raw bytes copied
// alongside, so a hit and a miss cost the same memory traffic outside the
// index.
type lookupData struct {
	ks     *Keys                 // nil for a streamed set or an index file
	ix     *partitionindex.Index // the index in memory; nil for an index file
	path   string                // the index file, if it is one
	part   partitioner.Partitioner
	slots  bool              // open with OpenOptions.JumpSlots
	hits   []partitioner.Key // present keys in random order
	hitPos []int64           // their positions
	misses []partitioner.Key // absent keys

	encOnce sync.Once
	encs    [][]byte
}

func (s *Set) lookup() (*lookupData, error) {
	s.lookupOnce.Do(func() {
		s.lk, s.lookupErr = newLookupData(s)
	})
	return s.lk, s.lookupErr
}

func newLookupData(s *Set) (*lookupData, error) {
	switch {
	case s.Gen != nil:
		return newStreamLookup(s)
	case s.IndexPath != "":
		return newFileLookup(s)
	}
	ks, err := s.Keys()
	if err != nil {
		return nil, err
	}
	p := ks.Keys[0].Partitioner
	sink := newSink(ks)
	b := partitionindex.NewBuilder(sink, partitionindex.Options{Partitioner: p})
	for i, k := range ks.Keys {
		if err := b.Add(&k, ks.Pos[i]); err != nil {
			return nil, err
		}
	}
	if _, err := b.Complete(); err != nil {
		return nil, err
	}
	ix, err := partitionindex.NewIndex(sink.Bytes(), partitionindex.OpenOptions{Partitioner: p, JumpSlots: s.jumpSlots})
	if err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(ProbeSeed1, ProbeSeed2))
	order := rng.Perm(len(ks.Keys))[:min(len(ks.Keys), MaxProbes)]
	lk := &lookupData{ks: ks, ix: ix, part: p, slots: s.jumpSlots}
	var arena []byte
	clone := func(raw []byte, extra int) []byte {
		if cap(arena)-len(arena) < len(raw)+extra {
			arena = make([]byte, 0, max(1<<20, len(raw)+extra))
		}
		start := len(arena)
		arena = append(arena, raw...)
		for range extra {
			arena = append(arena, byte(rng.Uint32()))
		}
		return arena[start:len(arena):len(arena)]
	}
	for _, i := range order {
		lk.hits = append(lk.hits, p.Decorate(clone(ks.Keys[i].Raw, 0)))
		lk.hitPos = append(lk.hitPos, ks.Pos[i])
	}
	// Each miss is a present key with one byte appended: for hashed
	// partitioners a random token, for ByteOrdered a near miss.
	for _, i := range order {
		k := p.Decorate(clone(ks.Keys[i].Raw, 1))
		if _, found := slices.BinarySearchFunc(ks.Keys, k, partitioner.Compare); !found {
			lk.misses = append(lk.misses, k)
		}
	}
	if len(lk.misses) == 0 {
		lk.misses = lk.hits[:1] // degenerate set: measure something
	}
	return lk, nil
}

// CheckLookups builds the set's lookup fixture (index and probes) now, so
// its error (*NotInIndexError for an index file whose keys.tsv is not its
// own) comes before any benchmark runs. The fixture is then shared.
func (s *Set) CheckLookups() error {
	_, err := s.lookup()
	return err
}

// openOptions are the options every mapping of the index file is opened
// with.
func (lk *lookupData) openOptions() partitionindex.OpenOptions {
	return partitionindex.OpenOptions{Partitioner: lk.part, JumpSlots: lk.slots}
}

// reader opens a Reader on the index and returns it with what closes it.
// An index file is mapped anew for each caller and unmapped by the
// closer, so once a workload's threads are torn down no mapping of this
// process pins the file's pages, and a later cold workload in the same
// process (bti bench --forks 0) can evict them.
func (lk *lookupData) reader() (*partitionindex.Reader, func(), error) {
	if lk.path == "" {
		rd, err := lk.ix.OpenReader()
		if err != nil {
			return nil, nil, err
		}
		return rd, func() { _ = rd.Close() }, nil
	}
	ix, err := partitionindex.Open(lk.path, lk.openOptions())
	if err != nil {
		return nil, nil, err
	}
	rd, err := ix.OpenReader()
	if err != nil {
		_ = ix.Close()
		return nil, nil, err
	}
	return rd, func() { _ = rd.Close(); _ = ix.Close() }, nil
}

// prefault walks every probe once through rd, so the pages they touch are
// mapped before the clock starts. A fresh mapping of a file in the page
// cache still takes a minor fault (about a microsecond, under the
// mapping's lock) on the first touch of each page; on a 100M-key file
// the probes touch a few hundred thousand pages, enough to dominate the
// first iterations. Warm means what it does for an index in memory: the
// cost of the walk, not of the first touch (the cold lookups measure the
// other extreme).
func prefault(rd *partitionindex.Reader, lk *lookupData) {
	for i := range lk.hits {
		_, _, _ = rd.Get(&lk.hits[i])
	}
	for i := range lk.misses {
		_, _, _ = rd.Get(&lk.misses[i])
		_, _ = rd.CeilingCandidates(&lk.misses[i])
	}
}

// LookupProbes returns the probes the lookup workloads on s use: the
// present keys in probe order with their positions, and the sorted
// byte-comparable encodings of all keys. Baselines that live outside this
// package (the vellum FST in partitionindex's benchmarks, which bti does
// not link) probe the same keys in the same order with them. The slices
// are shared: do not modify them.
func (s *Set) LookupProbes() (hits []partitioner.Key, hitPos []int64, sorted [][]byte, err error) {
	lk, err := s.lookup()
	if err != nil {
		return nil, nil, nil, err
	}
	if lk.ks == nil {
		return nil, nil, nil, &NotInMemoryError{Set: jmhstyle.Benchmark{Params: s.Params}.ID()}
	}
	return lk.hits, lk.hitPos, lk.encodings(), nil
}

func (lk *lookupData) encodings() [][]byte {
	lk.encOnce.Do(func() {
		lk.encs = make([][]byte, len(lk.ks.Keys))
		var arena []byte
		for i, k := range lk.ks.Keys {
			if cap(arena)-len(arena) < len(k.Raw)+64 {
				arena = make([]byte, 0, 1<<20)
			}
			start := len(arena)
			arena = k.AppendComparable(arena)
			lk.encs[i] = arena[start:len(arena):len(arena)]
		}
	})
	return lk.encs
}

// Lookups returns the lookup workloads on set, one op per probe:
//
//   - lookup-hit: Reader.Get of present keys in random order (up to
//     MaxProbes distinct probes, cycled), each result checked;
//   - lookup-miss: Reader.Get of absent keys (each a present key plus one
//     random byte);
//   - ceiling: Reader.CeilingCandidates of those absent keys (the walk
//     only, without a KeyAt to confirm against);
//   - lookup-batch: lookup-hit through Reader.GetBatch, 16 keys per call
//     (one op is one key);
//   - binary-search-hit: the baseline, sort.Search over the sorted
//     byte-comparable encodings of the same keys, the probe encoded inside
//     the op as the index does.
//
// Every thread (Setup) opens its own Reader and starts at another probe.
// A hit that does not find its key's position adds one to bad, which the
// runner must check after running: a benchmark of a broken lookup is
// worthless.
func Lookups(set *Set, bad *atomic.Int64) []jmhstyle.Benchmark {
	var threadSeq atomic.Uint64 // start each thread at another probe
	info := func() []jmhstyle.Param {
		return append(set.info(),
			jmhstyle.Param{Key: "probe-seed", Value: strconv.Itoa(ProbeSeed1) + "," + strconv.Itoa(ProbeSeed2)})
	}
	mk := func(name string, body func(lk *lookupData, rd *partitionindex.Reader, start int) func(n int)) jmhstyle.Benchmark {
		return jmhstyle.Benchmark{
			Name:   name,
			Params: slices.Clone(set.Params),
			Setup: func() (func(n int), func(), error) {
				lk, err := set.lookup()
				if err != nil {
					return nil, nil, err
				}
				rd, closeReader, err := lk.reader()
				if err != nil {
					return nil, nil, err
				}
				if lk.path != "" {
					prefault(rd, lk)
				}
				start := int(threadSeq.Add(1) * 7919)
				return body(lk, rd, start), closeReader, nil
			},
			Info: info,
		}
	}
	// hit's timed loop is mirrored by binary's (and by miss's and
	// ceiling's without the check): the probe cycling and the count of
	// wrong answers are written out in each rather than shared, so the
	// clock measures the lookup and no extra call per op.
	hit := func(lk *lookupData, rd *partitionindex.Reader, start int) func(n int) {
		probes, want := lk.hits, lk.hitPos
		j := start % len(probes)
		return func(n int) {
			wrong := 0
			for range n {
				pos, ok, err := rd.Get(&probes[j])
				if err != nil || !ok || pos != want[j] {
					wrong++
				}
				if j++; j == len(probes) {
					j = 0
				}
			}
			if wrong > 0 {
				bad.Add(int64(wrong))
			}
		}
	}
	miss := func(lk *lookupData, rd *partitionindex.Reader, start int) func(n int) {
		probes := lk.misses
		j := start % len(probes)
		return func(n int) {
			for range n {
				_, _, _ = rd.Get(&probes[j])
				if j++; j == len(probes) {
					j = 0
				}
			}
		}
	}
	ceiling := func(lk *lookupData, rd *partitionindex.Reader, start int) func(n int) {
		probes := lk.misses
		j := start % len(probes)
		return func(n int) {
			for range n {
				_, _ = rd.CeilingCandidates(&probes[j]) // the walk only: no KeyAt
				if j++; j == len(probes) {
					j = 0
				}
			}
		}
	}
	// binary mirrors hit's timed loop (see there why it is not shared),
	// with sort.Search in place of Reader.Get.
	binary := func(lk *lookupData, _ *partitionindex.Reader, start int) func(n int) {
		probes, want, encs, pos := lk.hits, lk.hitPos, lk.encodings(), lk.ks.Pos
		j := start % len(probes)
		var scratch []byte
		return func(n int) {
			wrong := 0
			for range n {
				scratch = probes[j].AppendComparable(scratch[:0])
				// sort.Search: the first x with encs[x] >= probe.
				x := sort.Search(len(encs), func(x int) bool { return bytes.Compare(encs[x], scratch) >= 0 })
				if x == len(encs) || !bytes.Equal(encs[x], scratch) || pos[x] != want[j] {
					wrong++
				}
				if j++; j == len(probes) {
					j = 0
				}
			}
			if wrong > 0 {
				bad.Add(int64(wrong))
			}
		}
	}
	// batch is lookup-hit through Reader.GetBatch, batchKeys keys per call.
	// One op is one key, so ns/op compares with lookup-hit.
	batch := func(lk *lookupData, rd *partitionindex.Reader, start int) func(n int) {
		const batchKeys = 16 // kept at 16 keys per call (GetBatch's lane count) so the row compares across revisions
		probes, want := lk.hits, lk.hitPos
		j := start % len(probes)
		res := make([]partitionindex.Result, 0, batchKeys)
		return func(n int) {
			wrong := 0
			for n > 0 {
				m := min(n, batchKeys, len(probes)-j)
				res = rd.GetBatch(res[:0], probes[j:j+m])
				for i, r := range res {
					if r.Err != nil || !r.OK || r.Pos != want[j+i] {
						wrong++
					}
				}
				n -= m
				if j += m; j == len(probes) {
					j = 0
				}
			}
			if wrong > 0 {
				bad.Add(int64(wrong))
			}
		}
	}
	bs := []jmhstyle.Benchmark{
		mk("lookup-hit", hit),
		mk("lookup-miss", miss),
		mk("ceiling", ceiling),
		mk("binary-search-hit", binary),
		mk("lookup-batch", batch),
	}
	if set.load == nil {
		// A streamed set or an index file: the baseline would need every
		// key in memory, which is what these sets exist to avoid.
		bs = slices.DeleteFunc(bs, func(b jmhstyle.Benchmark) bool { return b.Name == "binary-search-hit" })
	}
	return bs
}
