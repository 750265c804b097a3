package workload

import (
	"slices"
	"strconv"
	"sync/atomic"

	"github.com/bti-go/bti/jmhstyle"
	"github.com/bti-go/bti/partitionindex"
)

// ColdOps is how many lookups one cold iteration performs. Each may read
// a few pages from the device, so an iteration takes milliseconds to
// seconds; a fixed count keeps it bounded whatever the device.
const ColdOps = 1024

// coldState is what the iterations of one cold workload share: the index
// they reopen after each eviction and the counters behind Info. A cold
// workload runs on one thread (it is single-shot), so only the runner's
// goroutine and then the worker's touch it, one after the other.
type coldState struct {
	lk        *lookupData
	ix        *partitionindex.Index
	rd        *partitionindex.Reader
	next      int   // first probe of the next iteration
	faults    int64 // major page faults during the lookups
	ops       int64
	residual  int64 // most pages resident right after an eviction and Open
	filePages int64
}

func (st *coldState) close() {
	if st.rd != nil {
		_ = st.rd.Close()
		_ = st.ix.Close()
		st.rd, st.ix = nil, nil
	}
}

// evictAndOpen closes the index, evicts its file from the page cache,
// opens it again and records how many of its pages are resident after
// Open (the footer and the top levels it reads, plus whatever another
// mapping holds: pages mapped in this or another process cannot be
// evicted).
func (st *coldState) evictAndOpen() error {
	st.close()
	if err := evictFile(st.lk.path); err != nil {
		return err
	}
	ix, err := partitionindex.Open(st.lk.path, st.lk.openOptions())
	if err != nil {
		return err
	}
	rd, err := ix.OpenReader()
	if err != nil {
		_ = ix.Close()
		return err
	}
	st.ix, st.rd = ix, rd
	resident, total, err := residentPages(st.lk.path)
	if err != nil {
		return err
	}
	st.residual, st.filePages = max(st.residual, resident), total
	return nil
}

// ColdLookups returns the cold variants of the lookups on set, which must
// be an index file (a streamed set or bti bench --index): lookup-hit-cold,
// lookup-miss-cold, ceiling-cold and lookup-batch-cold. Before every
// iteration (outside the clock) the index is closed, its file evicted
// from the page cache (posix_fadvise DONTNEED) and reopened; the
// iteration then performs ColdOps lookups of the next probes, so the
// device serves every page below the levels Open reads. The mapping of a
// closed Index is gone, and the warm lookups unmap theirs when torn down
// (lookupData.reader), so nothing of this process pins the pages; another
// process's mapping of the file would, and resident-pages-after-open in
// Info shows it.
//
// Info adds major-faults-per-op, the major page faults
// (getrusage RUSAGE_SELF ru_majflt, read before and after the lookups of
// each iteration) per lookup: with MADV_RANDOM each is one page read
// from the device, so it is the pages a cold lookup reads. And
// resident-pages-after-open and file-pages, from mincore on a separate,
// untouched mapping.
func ColdLookups(set *Set, bad *atomic.Int64) []jmhstyle.Benchmark {
	mk := func(name string, body func(st *coldState, from int) (wrong int)) jmhstyle.Benchmark {
		st := &coldState{}
		return jmhstyle.Benchmark{
			Name:             name,
			Params:           slices.Clone(set.Params),
			SingleShot:       true,
			OpsPerInvocation: ColdOps,
			Setup: func() (func(n int), func(), error) {
				lk, err := set.lookup()
				if err != nil {
					return nil, nil, err
				}
				if lk.path == "" {
					return nil, nil, &NotInMemoryError{Set: jmhstyle.Benchmark{Params: set.Params}.ID()}
				}
				st.lk = lk
				op := func(int) {
					before := majorFaults()
					wrong := body(st, st.next)
					st.faults += majorFaults() - before
					st.ops += ColdOps
					if wrong > 0 {
						bad.Add(int64(wrong))
					}
				}
				return op, st.close, nil
			},
			BeforeIteration: func() error {
				if st.ops > 0 {
					st.next += ColdOps // fresh probes: the device, not the cache
				}
				return st.evictAndOpen()
			},
			Info: func() []jmhstyle.Param {
				info := append(set.info(), jmhstyle.Param{Key: "cold-ops", Value: strconv.Itoa(ColdOps)})
				if st.ops > 0 {
					info = append(info,
						jmhstyle.Param{Key: "major-faults-per-op", Value: strconv.FormatFloat(float64(st.faults)/float64(st.ops), 'f', 3, 64)},
						jmhstyle.Param{Key: "resident-pages-after-open", Value: strconv.FormatInt(st.residual, 10)},
						jmhstyle.Param{Key: "file-pages", Value: strconv.FormatInt(st.filePages, 10)})
				}
				return info
			},
		}
	}
	hit := func(st *coldState, from int) int {
		probes, want := st.lk.hits, st.lk.hitPos
		wrong := 0
		for k := range ColdOps {
			j := (from + k) % len(probes)
			if pos, ok, err := st.rd.Get(&probes[j]); err != nil || !ok || pos != want[j] {
				wrong++
			}
		}
		return wrong
	}
	miss := func(st *coldState, from int) int {
		probes := st.lk.misses
		for k := range ColdOps {
			_, _, _ = st.rd.Get(&probes[(from+k)%len(probes)])
		}
		return 0
	}
	ceiling := func(st *coldState, from int) int {
		probes := st.lk.misses
		for k := range ColdOps {
			_, _ = st.rd.CeilingCandidates(&probes[(from+k)%len(probes)])
		}
		return 0
	}
	// The cold batch goes through GetBatchCold, which asks the kernel to
	// read every walk's next page ahead so that the reads of its 16 lanes
	// are in flight together (GetBatch's prefetches overlap nothing when
	// each miss is a page fault), in calls of coldBatchKeys keys, so lanes
	// refill from the call's later keys while earlier reads are pending.
	const coldBatchKeys = 256
	res := make([]partitionindex.Result, 0, coldBatchKeys)
	batch := func(st *coldState, from int) int {
		probes, want := st.lk.hits, st.lk.hitPos
		wrong := 0
		for done := 0; done < ColdOps; {
			j := (from + done) % len(probes)
			m := min(coldBatchKeys, ColdOps-done, len(probes)-j)
			res = st.rd.GetBatchCold(res[:0], probes[j:j+m])
			for i, r := range res {
				if r.Err != nil || !r.OK || r.Pos != want[j+i] {
					wrong++
				}
			}
			done += m
		}
		return wrong
	}
	return []jmhstyle.Benchmark{
		mk("lookup-hit-cold", hit),
		mk("lookup-miss-cold", miss),
		mk("ceiling-cold", ceiling),
		mk("lookup-batch-cold", batch),
	}
}
