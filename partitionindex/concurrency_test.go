package partitionindex

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/bti-go/bti/partitioner"
)

// Concurrency: an Index is shared, each goroutine reads through its own
// Reader handle. Run with -race. Closing the index while lookups are in
// flight does not pull the bytes from under them: the memory is released
// when the last handle closes.

const concurrentGoroutines = 8

// concurrentInput is a 100k-key Murmur3 set (20k under -short or -race).
func concurrentInput(t *testing.T) *orderedInput {
	n := 100000
	if testing.Short() || raceEnabled {
		n = 20000
	}
	r := seededRand(21)
	raws := make([][]byte, n)
	for i := range raws {
		raws[i] = randomBytesN(r, 4+r.IntN(28), nil)
	}
	return newOrderedInput("concurrent", partitioner.Murmur3, 0, r, raws)
}

// checkLookups runs lookups of keys[from::step] and a bounded scan on rd and
// returns the first wrong answer or error.
func checkLookups(rd *Reader, s *orderedInput, from, step int) error {
	for i := from; i < len(s.keys); i += step {
		k := s.part.Decorate(s.keys[i])
		pos, ok, err := rd.Get(&k)
		if err != nil || !ok || pos != s.pos[i] {
			return fmt.Errorf("Get key %d: %d %v %v, want %d", i, pos, ok, err, s.pos[i])
		}
		// A member's own entry is on its path: the first candidate.
		if c, err := rd.CeilingCandidates(&k); err != nil || !c.HasOnPath || c.OnPath != s.pos[i] {
			return fmt.Errorf("CeilingCandidates key %d: %+v %v, want %d", i, c, err, s.pos[i])
		}
		if c, err := rd.FloorCandidates(&k); err != nil || !c.HasOnPath || c.OnPath != s.pos[i] {
			return fmt.Errorf("FloorCandidates key %d: %+v %v, want %d", i, c, err, s.pos[i])
		}
	}
	start := s.part.Decorate(s.keys[from])
	j := from
	for it := rd.Scan(&start, nil); it.Next() && j < from+500; j++ {
		if it.Pos() != s.pos[j] {
			return fmt.Errorf("scan entry %d: %d, want %d", j, it.Pos(), s.pos[j])
		}
	}
	end := s.part.Decorate(s.keys[len(s.keys)-1-from])
	j = len(s.keys) - 1 - from
	for it := rd.ScanReverse(nil, &end); it.Next() && j > len(s.keys)-500-from; j-- {
		if it.Pos() != s.pos[j] {
			return fmt.Errorf("reverse scan entry %d: %d, want %d", j, it.Pos(), s.pos[j])
		}
	}
	return nil
}

func TestConcurrentReaders(t *testing.T) {
	s := concurrentInput(t)
	ix, err := NewIndex(s.cleanBuild(t, len(s.keys)), OpenOptions{Partitioner: s.part})
	require.NoError(t, err)
	var wg sync.WaitGroup
	errs := make(chan error, concurrentGoroutines)
	for g := range concurrentGoroutines {
		wg.Go(func() {
			rd, err := ix.OpenReader()
			if err != nil {
				errs <- err
				return
			}
			defer rd.Close()
			// Overlapping strides: every key is read by two goroutines.
			if err := checkLookups(rd, s, g%4, 4); err != nil {
				errs <- fmt.Errorf("goroutine %d: %w", g, err)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	require.NoError(t, ix.Close())
}

// closeWhileInFlight closes ix while goroutines look up through their
// handles, then checks the lifecycle. released reports whether ix's memory
// was released.
func closeWhileInFlight(t *testing.T, ix *Index, s *orderedInput, released func() bool) {
	handles := make([]*Reader, concurrentGoroutines)
	for g := range handles {
		rd, err := ix.OpenReader()
		require.NoError(t, err)
		handles[g] = rd
	}
	var (
		wg      sync.WaitGroup
		started sync.WaitGroup
		closed  atomic.Bool
		rounds  [concurrentGoroutines]int
	)
	errs := make(chan error, concurrentGoroutines)
	started.Add(concurrentGoroutines)
	for g, rd := range handles {
		wg.Go(func() {
			started.Done()
			// Keep looking up until the index is closed, then two rounds
			// more: those run on a closed index through a live handle.
			for after := 0; after < 2; rounds[g]++ {
				if closed.Load() {
					after++
				}
				if err := checkLookups(rd, s, g, len(s.keys)/50); err != nil {
					errs <- fmt.Errorf("goroutine %d round %d (index closed: %v): %w", g, rounds[g], closed.Load(), err)
					return
				}
			}
		})
	}
	started.Wait()
	require.NoError(t, ix.Close())
	closed.Store(true)
	require.NoError(t, ix.Close(), "Close is idempotent")
	_, err := ix.OpenReader()
	require.ErrorIs(t, err, ErrClosed)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	require.False(t, released(), "memory held while handles are open")

	// Handles close one by one; the last one releases the memory.
	for g, rd := range handles {
		require.NoError(t, rd.Close())
		require.NoError(t, rd.Close(), "Reader.Close is idempotent")
		k := s.part.Decorate(s.keys[0])
		requireKeyLookupsFail(t, rd, k, ErrClosed)
		_, _, err := rd.First()
		require.ErrorIs(t, err, ErrClosed)
		_, _, err = rd.Last()
		require.ErrorIs(t, err, ErrClosed)
		it := rd.Scan(nil, nil)
		require.False(t, it.Next())
		require.ErrorIs(t, it.Err(), ErrClosed)
		rit := rd.ScanReverse(nil, nil)
		require.False(t, rit.Next())
		require.ErrorIs(t, rit.Err(), ErrClosed)
		require.Equal(t, g == len(handles)-1, released(), "released after handle %d", g)
	}
}

func TestConcurrentCloseInFlight(t *testing.T) {
	s := concurrentInput(t)
	ix, err := NewIndex(s.cleanBuild(t, len(s.keys)), OpenOptions{Partitioner: s.part})
	require.NoError(t, err)
	var releases atomic.Int32
	ix.release = func() error { releases.Add(1); return nil }
	closeWhileInFlight(t, ix, s, func() bool { return releases.Load() > 0 })
	require.Equal(t, int32(1), releases.Load(), "released exactly once")
}

// TestConcurrentMmap does the same on a memory-mapped file: after the last
// handle closes, the mapping is gone from the process (checked in
// /proc/self/maps where there is one), and nothing touched it afterwards, or
// the test would have crashed.
func TestConcurrentMmap(t *testing.T) {
	s := concurrentInput(t)
	path := filepath.Join(t.TempDir(), "Partitions.db")
	require.NoError(t, os.WriteFile(path, s.cleanBuild(t, len(s.keys)), 0o644))
	ix, err := Open(path, OpenOptions{Partitioner: s.part})
	require.NoError(t, err)
	mapped := func() bool {
		maps, err := os.ReadFile("/proc/self/maps")
		if err != nil {
			return false // no procfs: rely on the release bookkeeping
		}
		return strings.Contains(string(maps), path)
	}
	_, procfs := os.Stat("/proc/self/maps")
	hasMapping := ix.release != nil
	if procfs == nil && hasMapping {
		require.True(t, mapped(), "the file is mapped while open")
	}
	closeWhileInFlight(t, ix, s, func() bool {
		ix.mu.Lock()
		defer ix.mu.Unlock()
		return hasMapping && ix.release == nil
	})
	if procfs == nil && hasMapping {
		require.False(t, mapped(), "the mapping is released with the last handle")
	}

	// Closing with no handle open releases at once.
	ix, err = Open(path, OpenOptions{Partitioner: s.part})
	require.NoError(t, err)
	require.NoError(t, ix.Close())
	if procfs == nil && hasMapping {
		require.False(t, mapped())
	}
	_, err = ix.OpenReader()
	require.True(t, errors.Is(err, ErrClosed))
}
