package partitionindex

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/bti-go/bti/internal/buildpath"
	"github.com/bti-go/bti/internal/goldenindex"
	"github.com/bti-go/bti/internal/keyset"
	"github.com/bti-go/bti/partitioner"
)

// Failure atomicity. The builder buffers its output and hands it to the sink
// at the start of a later call (Add, Flush or Complete), before any
// state changes. So a sink error must leave the builder exactly as before the
// call: finishing with Complete gives the index of the keys accepted so far,
// and retrying the call gives the file a clean build would have written.
//
// The tests below fail the Nth Write call of the sink (whole or short) for
// every N the build reaches, on the golden inputs and on random key sets
// chosen to make the writer produce bytes at awkward moments (nodes crossing
// pages, 20 KB keys followed by short ones, a 64 KiB burst before Complete).

// errInjected is the one-shot fault of faultWriter.
var errInjected = errors.New("injected write fault")

// faultWriter is an in-memory sink that fails on chosen Write calls.
type faultWriter struct {
	buf   bytes.Buffer
	calls int
	// failAt is the 1-based Write call that fails (0: never); the fault is
	// one-shot. failOdd fails every odd call instead, so every retry (the
	// even call after it) succeeds.
	failAt  int
	failOdd bool
	// short makes a failing call accept the first half of p (a short write)
	// instead of nothing.
	short bool
	fired int // calls that failed
}

func (w *faultWriter) Write(p []byte) (int, error) {
	w.calls++
	if (w.failAt != 0 && w.calls == w.failAt) || (w.failOdd && w.calls%2 == 1) {
		w.fired++
		if w.short {
			n := len(p) / 2
			w.buf.Write(p[:n])
			return n, fmt.Errorf("short write of %d/%d bytes: %w", n, len(p), errInjected)
		}
		return 0, errInjected
	}
	return w.buf.Write(p)
}

// orderedInput is one ordered input: raw keys in the partitioner's order, with
// their positions, and the page size to build them with.
type orderedInput struct {
	name     string
	part     partitioner.Partitioner
	pageSize int
	keys     [][]byte
	pos      []int64

	mu      sync.Mutex
	clean   map[int][]byte // clean builds of the first n keys
	checked map[int]bool   // clean builds checkIndexFile has read back
}

func (s *orderedInput) opts() Options {
	return Options{Partitioner: s.part, PageSize: s.pageSize}
}

// cleanBuild returns the file a fault-free build of the first n keys writes.
// Both paths write the same bytes (the golden and model tests check that),
// so it is built once, on the scratch path.
func (s *orderedInput) cleanBuild(t testing.TB, n int) []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	if f, ok := s.clean[n]; ok {
		return f
	}
	var buf bytes.Buffer
	b := NewBuilder(&buf, s.opts())
	for i := range n {
		require.NoError(t, addRaw(b, s.keys[i], s.pos[i]))
	}
	_, err := b.Complete()
	require.NoError(t, err)
	if s.clean == nil {
		s.clean = map[int][]byte{}
	}
	s.clean[n] = buf.Bytes()
	return buf.Bytes()
}

// newOrderedInput sorts raws in p's order, drops duplicates and gives every key a
// distinct position; the positions cover payload sizes 1..8 and both signs.
func newOrderedInput(name string, p partitioner.Partitioner, pageSize int, r *rand.Rand, raws [][]byte) *orderedInput {
	keys := keyset.Decorate(p, raws)
	s := &orderedInput{name: name, part: p, pageSize: pageSize}
	for i, k := range keys {
		s.keys = append(s.keys, k.Raw)
		v := int64(i) + r.Int64N(1<<(1+r.IntN(62)))
		if r.IntN(2) == 0 {
			v = ^v
		}
		s.pos = append(s.pos, v)
	}
	return s
}

// awkwardInputs are inputs that make the writer emit bytes at awkward points.
func awkwardInputs(short bool) []*orderedInput {
	r := rand.New(rand.NewPCG(7, 11))
	scale := 1
	if short {
		scale = 4
	}
	var sets []*orderedInput
	add := func(name string, p partitioner.Partitioner, pageSize int, raws [][]byte) {
		sets = append(sets, newOrderedInput(name, p, pageSize, r, raws))
	}
	gen := func(n, minLen, maxLen int, alphabet []byte) [][]byte {
		out := make([][]byte, n/scale)
		for i := range out {
			out[i] = randomBytesN(r, minLen+r.IntN(maxLen-minLen+1), alphabet)
		}
		return out
	}
	add("murmur3-random", partitioner.Murmur3, 0, gen(3000, 1, 40, nil))
	// Tiny pages: branches are written after almost every key.
	add("murmur3-page128", partitioner.Murmur3, 128, gen(1500, 1, 24, nil))
	add("byteordered-page64", partitioner.ByteOrdered, 64, gen(1500, 1, 12, []byte{0, 1, 0x7f, 0xfe, 0xff}))

	// A 4 KiB shared prefix: the chain of single nodes crosses pages.
	prefix := randomBytesN(r, 4096, nil)
	var withPrefix [][]byte
	for _, tail := range gen(600, 0, 16, []byte{0, 1, 2, 0xff}) {
		withPrefix = append(withPrefix, append(slices.Clip(prefix), tail...))
	}
	add("byteordered-prefix4096", partitioner.ByteOrdered, 0, withPrefix)
	// The same prefix with a big-endian counter: branches are written as
	// the keys go in, not only at Complete.
	var counted [][]byte
	for i := range 3000 / scale {
		counted = append(counted, binary.BigEndian.AppendUint64(slices.Clip(prefix), uint64(i)))
	}
	add("byteordered-prefix4096-counter", partitioner.ByteOrdered, 0, counted)
	add("murmur3-prefix4096", partitioner.Murmur3, 0, withPrefix[:len(withPrefix)/3])

	// ~20 KB keys among short ones: the ring's slots grow and shrink.
	var longShort [][]byte
	long := randomBytesN(r, 20000, nil)
	for i := range 40 / scale {
		k := append(slices.Clip(long[:19990]), randomBytesN(r, 1+r.IntN(10), nil)...)
		longShort = append(longShort, k)
		if i%3 == 0 {
			longShort = append(longShort, randomBytesN(r, 20000, nil))
		}
	}
	longShort = append(longShort, gen(400, 1, 8, nil)...)
	add("byteordered-longshort", partitioner.ByteOrdered, 0, longShort)
	add("murmur3-longshort", partitioner.Murmur3, 0, longShort)

	// Two keys of 65000 bytes sharing all but their last byte, then two
	// short keys: adding the last short key completes the long chain and
	// leaves more than 64 KiB buffered, so Complete's first act is to hand
	// it to the sink (a failure there must still finish the builder).
	chain := randomBytesN(r, 65000, []byte{'x', 'y'})
	add("byteordered-burst", partitioner.ByteOrdered, 0, [][]byte{
		append([]byte("A"), append(slices.Clip(chain), 'a')...),
		append([]byte("A"), append(slices.Clip(chain), 'b')...),
		[]byte("B"), []byte("C"),
	})
	// First-key failures: with one key, the first Write is in Complete.
	add("murmur3-one", partitioner.Murmur3, 0, [][]byte{[]byte("only")})
	add("empty", partitioner.Murmur3, 0, nil)
	return sets
}

// goldenInputs returns the golden inputs of at most maxKeys keys, as plain
// builds (the early-open requests of the -partial cases are left out: the
// clean build below is built the same way, so the comparison stands).
func goldenInputs(t *testing.T, maxKeys int) []*orderedInput {
	var sets []*orderedInput
	for _, c := range goldenindex.Cases(t) {
		if len(c.Entries) > maxKeys {
			continue
		}
		s := &orderedInput{name: "golden-" + c.Name, part: c.Partitioner}
		for _, e := range c.Entries {
			s.keys = append(s.keys, e.Key)
			s.pos = append(s.pos, e.Pos)
		}
		if len(c.Partials) == 0 {
			s.clean = map[int][]byte{len(s.keys): c.Want}
		}
		sets = append(sets, s)
	}
	return sets
}

// longTestsRequested reports whether the long variants were asked for (BTI_LONG=1).
func longTestsRequested() bool { return os.Getenv("BTI_LONG") == "1" }

// faultInputs is what the fault tests run over: every golden case up to
// 50,000 keys (all with BTI_LONG=1, up to 5,000 under -short or -race) and
// the random sets.
func faultInputs(t *testing.T) []*orderedInput {
	maxKeys := 50000
	switch {
	case longTestsRequested():
		maxKeys = 1 << 30
	case testing.Short() || raceEnabled:
		maxKeys = 5000
	}
	return append(goldenInputs(t, maxKeys), awkwardInputs(testing.Short() || raceEnabled)...)
}

// countWrites returns how many Write calls a fault-free build makes.
func countWrites(t *testing.T, s *orderedInput, path buildpath.Path, flushEach bool) int {
	w := &faultWriter{}
	b := newPathBuilder(w, s.opts(), path)
	for i := range s.keys {
		require.NoError(t, addRaw(b, s.keys[i], s.pos[i]))
		if flushEach {
			require.NoError(t, b.Flush())
		}
	}
	_, err := b.Complete()
	require.NoError(t, err)
	require.Equal(t, s.cleanBuild(t, len(s.keys)), w.buf.Bytes(), "flushing changes no byte")
	return w.calls
}

// checkIndexFile checks that file is the index of exactly the first n keys
// of s: count and footer keys agree, each key resolves to its position and
// iteration lists the positions in order.
func checkIndexFile(t *testing.T, s *orderedInput, file []byte, n int, root int64) {
	t.Helper()
	ix, err := NewIndex(file, OpenOptions{Partitioner: s.part})
	require.NoError(t, err)
	require.Equal(t, root, ix.Root())
	require.Equal(t, int64(n), ix.Count(), "count")
	if n > 0 {
		require.Equal(t, s.keys[0], ix.FirstKey(), "first key")
		require.Equal(t, s.keys[n-1], ix.LastKey(), "last key")
	}
	rd, err := ix.OpenReader()
	require.NoError(t, err)
	defer rd.Close()
	for i := range n {
		k := s.part.Decorate(s.keys[i])
		pos, ok, err := rd.Get(&k)
		require.NoError(t, err)
		require.True(t, ok && pos == s.pos[i], "key %d: Get gives %d, %v, want %d", i, pos, ok, s.pos[i])
	}
	it := rd.Scan(nil, nil)
	for i := range n {
		require.True(t, it.Next(), "the scan ends at %d of %d entries", i, n)
		require.Equal(t, s.pos[i], it.Pos(), "scan entry %d", i)
	}
	require.False(t, it.Next(), "the scan goes past %d entries", n)
	require.NoError(t, it.Err())
}

// retryComplete calls Complete until it succeeds; with a one-shot fault
// at most one attempt may fail (with failOdd, one per write Complete makes),
// and then with the injected error. After
// a failed Complete the builder is finishing: Add and BuildPartial
// refuse with ErrFinished, and only Complete goes on.
func retryComplete(t *testing.T, b indexBuilder, extra []byte, maxFailures int) int64 {
	t.Helper()
	for attempt := 0; ; attempt++ {
		m, err := b.Complete()
		if err == nil {
			return m.Root
		}
		require.ErrorIs(t, err, errInjected)
		require.Less(t, attempt, maxFailures, "every write fails at most once")
		count := b.Count()
		require.ErrorIs(t, addRaw(b, extra, 0), ErrFinished, "Add after a failed Complete")
		_, err = b.BuildPartial(0, 0, func(*PartialIndex) {})
		require.ErrorIs(t, err, ErrFinished, "BuildPartial after a failed Complete")
		require.Equal(t, count, b.Count())
	}
}

// keyAfterInput is a key that sorts after every key of s.
func keyAfterInput(s *orderedInput) []byte {
	if s.part == partitioner.ByteOrdered {
		return bytes.Repeat([]byte{0xff}, 70) // no set has such a key
	}
	for i := 0; ; i++ {
		k := fmt.Appendf(nil, "extra-%d", i)
		if len(s.keys) == 0 || partitioner.Compare(s.part.Decorate(k), s.part.Decorate(s.keys[len(s.keys)-1])) > 0 {
			return k
		}
	}
}

// stopAfterFailedWrite fails Write call n, then stops adding and completes: the file is
// the clean build of exactly the keys accepted before the failure.
func stopAfterFailedWrite(t *testing.T, s *orderedInput, path buildpath.Path, flushEach, short bool, n int) {
	w := &faultWriter{failAt: n, short: short}
	b := newPathBuilder(w, s.opts(), path)
	accepted := 0
loop:
	for i := range s.keys {
		before, count := b.Position(), b.Count()
		if err := addRaw(b, s.keys[i], s.pos[i]); err != nil {
			require.ErrorIs(t, err, errInjected, "key %d", i)
			require.Equal(t, before, b.Position(), "a failed Add produces no bytes")
			require.Equal(t, count, b.Count(), "a failed Add accepts no key")
			break loop
		}
		accepted++
		if flushEach {
			// Flush only moves bytes from the buffer to the sink: the
			// logical position never changes, failed or not.
			before := b.Position()
			if err := b.Flush(); err != nil {
				require.ErrorIs(t, err, errInjected, "flush after key %d", i)
				require.Equal(t, before, b.Position())
				break loop
			}
		}
	}
	require.Equal(t, int64(accepted), b.Count())
	root := retryComplete(t, b, keyAfterInput(s), 1)
	require.Equal(t, 1, w.fired, "write %d was reached", n)
	got := w.buf.Bytes()
	want := s.cleanBuild(t, accepted)
	if !bytes.Equal(want, got) {
		t.Fatalf("failed at write %d after %d keys: completed file (%d bytes) differs from the clean build (%d bytes) at offset %d",
			n, accepted, len(got), len(want), firstDiff(got, want))
	}
	// The bytes equal the clean build; read each distinct one back once.
	s.mu.Lock()
	done := s.checked[accepted]
	if s.checked == nil {
		s.checked = map[int]bool{}
	}
	s.checked[accepted] = true
	s.mu.Unlock()
	if !done {
		checkIndexFile(t, s, got, accepted, root)
	}
	checkFinished(t, b, w, root, keyAfterInput(s))
}

// retryFailedWrite fails Write call n (or every odd call), retries the failed call
// and goes on: the file is the clean build of all keys.
func retryFailedWrite(t *testing.T, s *orderedInput, path buildpath.Path, flushEach, short bool, n int) {
	w := &faultWriter{failAt: n, failOdd: n == 0, short: short}
	b := newPathBuilder(w, s.opts(), path)
	for i := range s.keys {
		for attempt := 0; ; attempt++ {
			before, count := b.Position(), b.Count()
			err := addRaw(b, s.keys[i], s.pos[i])
			if err == nil {
				break
			}
			require.ErrorIs(t, err, errInjected, "key %d", i)
			require.Zero(t, attempt, "the retry succeeds")
			require.Equal(t, before, b.Position())
			require.Equal(t, count, b.Count())
		}
		if flushEach {
			for attempt := 0; ; attempt++ {
				before := b.Position()
				err := b.Flush()
				if err == nil {
					break
				}
				require.ErrorIs(t, err, errInjected, "flush after key %d", i)
				require.Zero(t, attempt, "the retry succeeds")
				require.Equal(t, before, b.Position())
			}
		}
	}
	root := retryComplete(t, b, keyAfterInput(s), 3)
	got, want := w.buf.Bytes(), s.cleanBuild(t, len(s.keys))
	if !bytes.Equal(want, got) {
		t.Fatalf("retried write %d: file (%d bytes) differs from the clean build (%d bytes) at offset %d",
			n, len(got), len(want), firstDiff(got, want))
	}
	if n != 0 {
		require.Equal(t, 1, w.fired, "write %d was reached", n)
	}
	checkFinished(t, b, w, root, keyAfterInput(s))
}

// checkFinished checks the state after a successful Complete: Add
// and BuildPartial return ErrFinished, Complete returns the same root again
// and writes nothing more.
func checkFinished(t *testing.T, b indexBuilder, w *faultWriter, root int64, extra []byte) {
	t.Helper()
	size := w.buf.Len()
	require.ErrorIs(t, addRaw(b, extra, 1), ErrFinished)
	_, err := b.BuildPartial(0, 0, func(*PartialIndex) {})
	require.ErrorIs(t, err, ErrFinished)
	again, err := b.Complete()
	require.NoError(t, err)
	require.Equal(t, root, again.Root)
	require.NoError(t, b.Flush())
	require.Equal(t, size, w.buf.Len(), "a second Complete writes nothing")
}

func TestFaultAtomicity(t *testing.T) {
	for _, s := range faultInputs(t) {
		t.Run(s.name, func(t *testing.T) {
			t.Parallel()
			// Big golden cases (the slow part) run on the scratch path,
			// with whole and short failures taking turns over N; the
			// reference path allocates three encodings per key.
			big := strings.HasPrefix(s.name, "golden-") && len(s.keys) > 1000
			paths := buildpath.All[:]
			if big {
				paths = paths[:1]
			}
			for _, path := range paths {
				for _, flushEach := range []bool{false, true} {
					writes := countWrites(t, s, path, flushEach)
					for _, short := range []bool{false, true} {
						name := fmt.Sprintf("%v/flushEach=%v/short=%v", path, flushEach, short)
						t.Run(name, func(t *testing.T) {
							for n := 1; n <= writes; n++ {
								if big && (n%2 == 0) != short && n != writes {
									continue // the other subtest takes this N
								}
								stopAfterFailedWrite(t, s, path, flushEach, short, n)
								retryFailedWrite(t, s, path, flushEach, short, n)
							}
							retryFailedWrite(t, s, path, flushEach, short, 0) // every odd write fails
						})
					}
				}
			}
		})
	}
}

// TestFaultCompleteBurst pins the case where Complete's first act is to hand
// more than 64 KiB to the sink: if that fails, the builder is finishing all
// the same (Add returns ErrFinished) and a retried Complete writes the
// clean file.
func TestFaultCompleteBurst(t *testing.T) {
	var s *orderedInput
	for _, rs := range awkwardInputs(true) {
		if rs.name == "byteordered-burst" {
			s = rs
		}
	}
	require.NotNil(t, s)
	for _, path := range buildpath.All {
		writes := countWrites(t, s, path, false)
		// The burst, then the rest of the trie with the footer appended
		// to it (they used to go out as two writes, the footer last).
		require.Equal(t, 2, writes, "the whole file is written by Complete, in two writes")
		for _, short := range []bool{false, true} {
			w := &faultWriter{failAt: 1, short: short}
			b := newPathBuilder(w, s.opts(), path)
			for i := range s.keys {
				require.NoError(t, addRaw(b, s.keys[i], s.pos[i]))
			}
			require.Zero(t, w.calls, "nothing written before Complete")
			_, err := b.Complete()
			require.ErrorIs(t, err, errInjected)
			require.ErrorIs(t, addRaw(b, []byte("D"), 5), ErrFinished, "Add after a failed Complete")
			root := retryComplete(t, b, []byte("E"), 1)
			require.Equal(t, s.cleanBuild(t, len(s.keys)), w.buf.Bytes())
			checkIndexFile(t, s, w.buf.Bytes(), len(s.keys), root)
		}
	}
}

// seededRand returns a deterministic generator.
func seededRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, seed^0x9e3779b9)) }

// TestFaultFullBufferMurmur3 pins what lets Add's Murmur3 common path hand
// the trie its key last, after the builder's own state has changed: a
// full output buffer takes addTokenFirst, whose trie call hands it to the
// sink before anything changes. 20,000 UUID-sized keys on 64-byte pages
// (which the trie writes as the keys go in; on 4096-byte pages it would
// hold all of them until Complete) fill the buffer during Add twice; each
// write fails once, whole and short, on both paths.
func TestFaultFullBufferMurmur3(t *testing.T) {
	r := rand.New(rand.NewPCG(22, 3))
	raws := make([][]byte, 20000)
	for i := range raws {
		raws[i] = randomBytesN(r, 16, nil)
	}
	s := newOrderedInput("murmur3-full", partitioner.Murmur3, 64, r, raws)
	for _, path := range buildpath.All {
		writes := countWrites(t, s, path, false)
		w := &faultWriter{}
		b := newPathBuilder(w, s.opts(), path)
		for i := range s.keys {
			require.NoError(t, addRaw(b, s.keys[i], s.pos[i]))
		}
		require.GreaterOrEqual(t, w.calls, 2, "%v: the buffer is handed over during Add, not only by Complete", path)
		for _, short := range []bool{false, true} {
			for n := 1; n <= writes; n++ {
				stopAfterFailedWrite(t, s, path, false, short, n)
				retryFailedWrite(t, s, path, false, short, n)
			}
		}
	}
}
