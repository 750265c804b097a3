package keygen

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/bti-go/bti/internal/keystsv"
	"github.com/bti-go/bti/partitioner"
)

// streamText runs Stream and returns what it emitted as keys.tsv lines.
func streamText(t *testing.T, c Config, opts StreamOptions) ([]byte, error) {
	t.Helper()
	dir := t.TempDir()
	opts.Dir = dir
	var out []byte
	err := c.Stream(context.Background(), opts, func(key []byte, pos int64) error {
		out = keystsv.AppendLine(out, key, pos)
		return nil
	})
	if left, rerr := os.ReadDir(dir); rerr != nil || len(left) > 0 {
		t.Fatalf("%+v: spill files left behind: %v %v", c, left, rerr)
	}
	return out, err
}

// keysText is the in-memory oracle: Keys and Positions as keys.tsv lines.
func keysText(c Config) ([]byte, error) {
	keys, err := c.Keys()
	if err != nil {
		return nil, err
	}
	pos := c.Positions(len(keys))
	var out []byte
	for i, k := range keys {
		out = keystsv.AppendLine(out, k.Raw, pos[i])
	}
	return out, nil
}

// TestStreamMatchesKeys: the spilling replay gives Keys' bytes for every
// kind and partitioner, with and without a prefix, over key spaces small
// enough to need several rounds, with buckets that fit and with a Memory
// so small that every bucket is sorted in many chunks and merged in
// several passes.
func TestStreamMatchesKeys(t *testing.T) {
	var configs []Config
	for _, p := range []partitioner.Partitioner{partitioner.Murmur3, partitioner.ByteOrdered, partitioner.Random} {
		for _, k := range []Kind{Int32, Int64, UUID, Text, Blob} {
			for _, prefix := range []int{0, 3} {
				configs = append(configs, Config{Partitioner: p, Kind: k, Count: 600, Seed: 11, PrefixBytes: prefix, KeyLenMin: 2, KeyLenMax: 9})
			}
		}
		configs = append(configs,
			// Many duplicate draws: several rounds.
			Config{Partitioner: p, Kind: Text, Count: 3000, Seed: 1, KeyLenMin: 2, KeyLenMax: 2},
			Config{Partitioner: p, Kind: Text, Count: 60, Seed: 2, KeyLenMin: 1, KeyLenMax: 1},
			// Half the draws empty, the prefix alone a key, every key taken.
			Config{Partitioner: p, Kind: Blob, Count: 240, Seed: 3, KeyLenMin: 0, KeyLenMax: 1, PrefixBytes: 2},
			Config{Partitioner: p, Kind: Blob, Count: 200, Seed: 4, KeyLenMin: 0, KeyLenMax: 1},
			// Keys longer than a one-byte length, sharing 200 bytes.
			Config{Partitioner: p, Kind: Blob, Count: 500, Seed: 5, KeyLenMin: 100, KeyLenMax: 300, PrefixBytes: 200},
			Config{Partitioner: p, Kind: UUID, Count: 0, Seed: 6},
			// Buckets above radixMin keys, with 1 MiB.
			Config{Partitioner: p, Kind: Int64, Count: 20000, Seed: 8},
			Config{Partitioner: p, Kind: Text, Count: 20000, Seed: 9, KeyLenMin: 1, KeyLenMax: 12},
			Config{Partitioner: p, Kind: Int64, Count: 1, Seed: 7, PositionsIncreasing: true},
		)
	}
	for _, c := range configs {
		want, err := keysText(c)
		if err != nil {
			t.Fatalf("%+v: Keys: %v", c, err)
		}
		for _, opts := range []StreamOptions{
			{},                            // in memory
			{Memory: 16 << 10},            // buckets that fit a sort
			{Memory: 1 << 10, Buckets: 4}, // ~16 chunks a bucket: two merge passes
			{Memory: 64, Buckets: 1},      // a key a chunk
		} {
			if opts.Memory < 16<<10 && c.Count > 10000 {
				continue // a file per few keys: slow, and covered by the small sets
			}
			if opts.Memory == 64 && (c.Kind != UUID || c.PrefixBytes != 0) {
				continue // a file per key: slow, and no path the others miss
			}
			got, err := streamText(t, c, opts)
			if err != nil {
				t.Fatalf("%+v %+v: %v", c, opts, err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("%+v %+v: Stream gave %d bytes unlike Keys' %d", c, opts, len(got), len(want))
			}
		}
	}
}

// TestStreamErrors: Stream refuses what Keys refuses, with the same
// message, and returns emit's error and a cancellation as they are,
// removing its files on each path.
func TestStreamErrors(t *testing.T) {
	refused := []Config{
		{Kind: Text, Count: 69, KeyLenMin: 1, KeyLenMax: 1},
		{Kind: Text, Count: 1, KeyLenMin: 5, KeyLenMax: 4},
		{Count: -1},
	}
	// An int holds Int32's 2^32 keys and one more only where it has 64
	// bits (a variable: the constant would not compile for 32-bit int).
	if n := uint64(1)<<32 + 1; strconv.IntSize == 64 {
		refused = append(refused, Config{Kind: Int32, Count: int(n)})
	}
	for _, c := range refused {
		_, want := c.Keys()
		_, got := streamText(t, c, StreamOptions{Memory: 64})
		if want == nil || got == nil || got.Error() != want.Error() {
			t.Fatalf("%+v: Stream says %v, Keys %v", c, got, want)
		}
	}

	// More keys than Stream emits between two looks at ctx.
	c := Config{Partitioner: partitioner.Murmur3, Kind: UUID, Count: 3 * cancelStride, Seed: 1}
	stop := errors.New("emit refused")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for _, tc := range []struct {
		name string
		ctx  context.Context
		emit func([]byte, int64) error
		want error
	}{
		{"emit fails", context.Background(), func([]byte, int64) error { return stop }, stop},
		{"cancelled while emitting", ctx, func([]byte, int64) error { cancel(); return nil }, context.Canceled},
	} {
		for _, memory := range []int64{0, 4 << 10} {
			dir := t.TempDir()
			err := c.Stream(tc.ctx, StreamOptions{Dir: dir, Memory: memory}, tc.emit)
			if !errors.Is(err, tc.want) {
				t.Fatalf("%s, memory %d: got %v, want %v", tc.name, memory, err, tc.want)
			}
			if left, _ := os.ReadDir(dir); len(left) > 0 {
				t.Fatalf("%s: left %v", tc.name, left)
			}
		}
	}
	cancelled, cancelNow := context.WithCancel(context.Background())
	cancelNow()
	err := c.Stream(cancelled, StreamOptions{Dir: t.TempDir(), Memory: 4 << 10}, func([]byte, int64) error { return nil })
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled before drawing: %v", err)
	}

	// A spill directory that is not there is a SpillError naming the file.
	err = c.Stream(context.Background(), StreamOptions{Dir: "/nonexistent/spill", Memory: 4 << 10}, func([]byte, int64) error { return nil })
	var se *SpillError
	if !errors.As(err, &se) || !strings.HasPrefix(se.Path, "/nonexistent/spill/") || !strings.Contains(err.Error(), se.Path) {
		t.Fatalf("missing spill directory: %v", err)
	}
}

// TestSortChunk checks the radix sort and its tie-breaking against a
// comparison sort by partitioner.Compare, on chunks above radixMin full of
// duplicates and of ByteOrdered keys sharing their first 8 bytes (equal
// prefixes), and on a small chunk (the comparison-sort path).
func TestSortChunk(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for _, p := range []partitioner.Partitioner{partitioner.Murmur3, partitioner.ByteOrdered, partitioner.Random} {
		for _, n := range []int{100, 3 * radixMin} {
			s := newSpill(Config{Partitioner: p, Kind: Blob, Count: n}, t.TempDir(), 1<<20, 1<<19, 1)
			var want []partitioner.Key
			for range n {
				// 8 shared-looking bytes then 0..2 more, over {0, 1}:
				// many equal prefixes and many duplicates.
				k := make([]byte, 8+rng.IntN(3))
				for i := range k {
					k[i] = byte(rng.IntN(2))
				}
				off := len(s.arena)
				s.arena = append(s.arena, k...)
				d := p.Decorate(k)
				s.entries = append(s.entries, entry{prefix: s.cfg.orderPrefix(d), off: uint32(off), n: uint32(len(k))})
				want = append(want, d)
			}
			slices.SortFunc(want, partitioner.Compare)
			want = slices.CompactFunc(want, func(a, b partitioner.Key) bool { return partitioner.Compare(a, b) == 0 })
			s.sortChunk()
			if len(s.entries) != len(want) {
				t.Fatalf("%v n=%d: %d keys after sorting, want %d", p, n, len(s.entries), len(want))
			}
			for i, e := range s.entries {
				if got := s.arena[e.off : e.off+e.n]; !bytes.Equal(got, want[i].Raw) {
					t.Fatalf("%v n=%d: key %d is %x, want %x", p, n, i, got, want[i].Raw)
				}
			}
		}
	}
}
