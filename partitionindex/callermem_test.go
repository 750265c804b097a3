package partitionindex

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/bti-go/bti/internal/buildpath"
	"github.com/bti-go/bti/partitioner"
)

// Caller memory: the builder and the reader copy what they keep, so a
// caller may hand every key in one buffer it overwrites as soon as the call
// returns. The builder holds the pending key (and the key before it) across
// calls; if it kept a reference instead of a copy, these tests would write
// different bytes.

// keyClobber is what the caller does to its key buffer after each call.
type keyClobber struct {
	name string
	fn   func(r *rand.Rand, buf []byte)
}

var keyClobbers = []keyClobber{
	{"garbage", func(r *rand.Rand, buf []byte) {
		for i := range buf {
			buf[i] = byte(r.Uint32())
		}
	}},
	{"shift", func(r *rand.Rand, buf []byte) {
		if len(buf) > 1 {
			copy(buf[1:], buf) // the key moves one byte right
			buf[0] ^= 0x5a
		}
	}},
	{"zero", func(r *rand.Rand, buf []byte) { clear(buf) }},
}

func callerMemInputs(t *testing.T) []*orderedInput {
	maxKeys := 5000
	if testing.Short() || raceEnabled {
		maxKeys = 1000
	}
	sets := goldenInputs(t, maxKeys)
	for _, s := range awkwardInputs(true) {
		switch s.name {
		case "murmur3-random", "byteordered-prefix4096", "byteordered-longshort", "murmur3-longshort", "byteordered-page64":
			sets = append(sets, s)
		}
	}
	return sets
}

func TestCallerMemoryBuild(t *testing.T) {
	for _, s := range callerMemInputs(t) {
		want := s.cleanBuild(t, len(s.keys))
		maxLen := 0
		for _, k := range s.keys {
			maxLen = max(maxLen, len(k))
		}
		for _, path := range buildpath.All {
			for _, cl := range keyClobbers {
				t.Run(fmt.Sprintf("%s/%v/%s", s.name, path, cl.name), func(t *testing.T) {
					r := rand.New(rand.NewPCG(1, 2))
					// One buffer for every key, with room for the shift.
					buf := make([]byte, maxLen+1)
					var out bytes.Buffer
					b := newPathBuilder(&out, s.opts(), path)
					for i, k := range s.keys {
						key := buf[:copy(buf, k)]
						if i%2 == 0 {
							require.NoError(t, addRaw(b, key, s.pos[i]))
						} else {
							dk := s.part.Decorate(key)
							require.NoError(t, b.Add(&dk, s.pos[i]))
						}
						cl.fn(r, buf)
					}
					_, err := b.Complete()
					require.NoError(t, err)
					if !bytes.Equal(want, out.Bytes()) {
						t.Fatalf("file differs from the clean build at offset %d", firstDiff(out.Bytes(), want))
					}
				})
			}
		}
	}
}

// TestCallerMemoryReader reuses one key buffer for every lookup and
// clobbers it after each call (and in the middle of iterations): the
// answers equal those of lookups with fresh keys.
func TestCallerMemoryReader(t *testing.T) {
	for _, s := range callerMemInputs(t) {
		if len(s.keys) < 2 {
			continue
		}
		file := s.cleanBuild(t, len(s.keys))
		ix, err := NewIndex(file, OpenOptions{Partitioner: s.part})
		require.NoError(t, err)
		fresh, err := ix.OpenReader()
		require.NoError(t, err)
		reused, err := ix.OpenReader()
		require.NoError(t, err)
		maxLen := 0
		for _, k := range s.keys {
			maxLen = max(maxLen, len(k))
		}
		startBuf, endBuf := make([]byte, maxLen+1), make([]byte, maxLen+1)
		byPos := map[int64][]byte{}
		for i, k := range s.keys {
			byPos[s.pos[i]] = k
		}
		keyAt := func(pos int64) ([]byte, error) { return byPos[pos], nil }
		r := rand.New(rand.NewPCG(4, 4))
		lookups := 200
		if testing.Short() || raceEnabled {
			lookups = 40
		}
		step := max(1, len(s.keys)/lookups)
		for _, cl := range keyClobbers {
			for i := 0; i < len(s.keys); i += step {
				k := s.keys[i]
				fk := s.part.Decorate(k)
				for _, lookup := range []struct {
					name string
					fn   func(rd *Reader, key *partitioner.Key) (int64, bool, error)
				}{
					{"Get", func(rd *Reader, key *partitioner.Key) (int64, bool, error) { return rd.Get(key) }},
					{"Ceiling", func(rd *Reader, key *partitioner.Key) (int64, bool, error) { return rd.Ceiling(key, keyAt) }},
					{"Floor", func(rd *Reader, key *partitioner.Key) (int64, bool, error) { return rd.Floor(key, keyAt) }},
				} {
					wantPos, wantOK, err := lookup.fn(fresh, &fk)
					require.NoError(t, err)
					dk := s.part.Decorate(startBuf[:copy(startBuf, k)])
					pos, ok, err := lookup.fn(reused, &dk)
					cl.fn(r, startBuf)
					require.NoError(t, err, lookup.name)
					require.Equal(t, [2]any{wantPos, wantOK}, [2]any{pos, ok}, lookup.name)
				}

				// A scan over the next few keys, with both bounds in
				// caller buffers clobbered right after Scan and after
				// every step.
				j := min(i+5, len(s.keys)-1)
				fs, fe := s.part.Decorate(s.keys[i]), s.part.Decorate(s.keys[j])
				var want []int64
				for it := fresh.Scan(&fs, &fe); it.Next(); {
					want = append(want, it.Pos())
				}
				var wantRev []int64
				for it := fresh.ScanReverse(&fs, &fe); it.Next(); {
					wantRev = append(wantRev, it.Pos())
				}
				for _, reverse := range []bool{false, true} {
					st := s.part.Decorate(startBuf[:copy(startBuf, s.keys[i])])
					en := s.part.Decorate(endBuf[:copy(endBuf, s.keys[j])])
					var got []int64
					if reverse {
						it := reused.ScanReverse(&st, &en)
						for cl.fn(r, startBuf); it.Next(); cl.fn(r, endBuf) {
							got = append(got, it.Pos())
						}
						require.NoError(t, it.Err())
						require.Equal(t, wantRev, got, "reverse scan %d..%d", i, j)
					} else {
						it := reused.Scan(&st, &en)
						for cl.fn(r, startBuf); it.Next(); cl.fn(r, endBuf) {
							got = append(got, it.Pos())
						}
						require.NoError(t, it.Err())
						require.Equal(t, want, got, "scan %d..%d", i, j)
					}
				}
			}
		}
		require.NoError(t, fresh.Close())
		require.NoError(t, reused.Close())
		require.NoError(t, ix.Close())
	}
}
