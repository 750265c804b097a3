// Package workload defines the module's benchmark workloads once: their
// names, parameters, key sets, seeds and operations. Both benchmark suites
// run them from here, "go test -bench" in partitionindex (bench_test.go)
// and "bti bench", so the same workload has the same name, the same keys
// and the same probes in both, and benchstat can compare their outputs
// line by line (jmhstyle.BenchName gives the shared naming rule).
//
// Each workload is a jmhstyle.Benchmark (op(n) performs n operations; Setup
// runs once per thread) plus what a runner needs to know to schedule it:
// the thread counts to run it with, whether it is huge (skipped under
// go test -short and in bti bench --size small) and whether it must run
// in a fresh process (Cold).
//
// The definitions are those bti bench used before this package existed
// (same seeds, key layout, probe order and parameter order), so a
// bti binary built from an older revision produces the same workloads under
// the same IDs, which is what the revision A/B mode of bti bench relies on.
package workload

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strconv"
	"sync"

	"github.com/bti-go/bti/internal/keygen"
	"github.com/bti-go/bti/internal/keystsv"
	"github.com/bti-go/bti/internal/sortedkeys"
	"github.com/bti-go/bti/jmhstyle"
	"github.com/bti-go/bti/partitioner"
)

// Seeds of the built-in key sets. Changing one changes every number
// measured on that set: keep them, or rename the set.
const (
	// MurmurSeed generates the Murmur3 UUID sets (build and lookup).
	MurmurSeed = 1
	// BlobSeed generates the ByteOrdered blob sets of every prefix length.
	BlobSeed = 2
	// ProbeSeed1 and ProbeSeed2 seed the PCG that orders the lookup probes
	// and draws the byte appended to make each miss.
	ProbeSeed1, ProbeSeed2 = 7, 11
)

// Set names as they appear in the "set" parameter.
const (
	SetMurmurUUID      = "murmur3-uuid"
	SetByteOrderedBlob = "byteordered-blob"
)

// BlobKeys is the size of the ByteOrdered prefix sets.
const BlobKeys = 16384

// MurmurUUID is the key set of n Murmur3-partitioned UUID keys.
func MurmurUUID(n int) keygen.Config {
	return keygen.Config{Partitioner: partitioner.Murmur3, Kind: keygen.UUID, Count: n, Seed: MurmurSeed}
}

// PrefixBlob is the ByteOrdered set of BlobKeys blob keys of 8..24 bytes,
// all behind the same random prefix of prefix bytes.
func PrefixBlob(prefix int) keygen.Config {
	return keygen.Config{Partitioner: partitioner.ByteOrdered, Kind: keygen.Blob, Count: BlobKeys, Seed: BlobSeed,
		PrefixBytes: prefix, KeyLenMin: 8, KeyLenMax: 24}
}

// Keys is a key set in memory, sorted and decorated, with its positions.
type Keys struct {
	Keys []partitioner.Key
	Pos  []int64
	Raw  int64 // total raw key bytes
	// SHA256 is the hex SHA-256 of the set written as keys.tsv (one
	// "<hex key>\t<position>\n" line per key, as bti gen writes it), so
	// "bti gen ... | sha256sum" reproduces it.
	SHA256 string
}

// NewKeys wraps a sorted, decorated key set and computes its digest.
func NewKeys(keys []partitioner.Key, pos []int64) *Keys {
	ks := &Keys{Keys: keys, Pos: pos}
	h := sha256.New()
	var line []byte
	for i, k := range keys {
		ks.Raw += int64(len(k.Raw))
		line = keystsv.AppendLine(line[:0], k.Raw, pos[i])
		h.Write(line)
	}
	ks.SHA256 = hex.EncodeToString(h.Sum(nil))
	return ks
}

// Set is a named key set, loaded on first use and then shared by every
// workload on it in this process. It also caches the lookup fixture
// (index and probes) built from it.
type Set struct {
	// Params describe the set: keys, set and, for ByteOrdered, prefix
	// (or keys, set, partitioner for a set read from a file).
	Params []jmhstyle.Param
	// Count is the number of keys.
	Count int
	// Seed is the generator seed, or -1 for a set read from a file.
	Seed int64
	// Huge sets (a million keys) are skipped under go test -short.
	Huge bool
	// Long sets (10^8 keys) run in go test only under BTI_LONG=1.
	Long bool
	// Gen, if not nil, generates the set key by key (a streamed set): it
	// is never held in memory, so Keys fails and only the workloads that
	// stream it (build-stream, lookups on its cached index file) run on
	// it.
	Gen    *sortedkeys.Set
	genErr error // why Gen is nil for a streamed set
	// IndexPath, if not empty, is an existing index of the set, whose
	// keys keysPath lists (bti bench --index --in): lookups run on that
	// file and sample their probes from keysPath, which is never loaded.
	IndexPath string
	keysPath  string
	part      partitioner.Partitioner
	load      func() (*Keys, error)

	once sync.Once
	ks   *Keys
	err  error

	jumpSlots  bool // the catalog's JumpSlots when the set was made
	lookupOnce sync.Once
	lk         *lookupData
	lookupErr  error
}

// Keys loads the set (once) and returns it.
func (s *Set) Keys() (*Keys, error) {
	s.once.Do(func() {
		if s.load == nil {
			s.err = &NotInMemoryError{Set: jmhstyle.Benchmark{Params: s.Params}.ID()}
			return
		}
		s.ks, s.err = s.load()
		if s.err == nil && len(s.ks.Keys) == 0 {
			s.err = errors.New("the key set is empty")
		}
	})
	return s.ks, s.err
}

// info describes the set for Benchmark.Info: its seed and digest.
func (s *Set) info() []jmhstyle.Param {
	var out []jmhstyle.Param
	if s.Seed >= 0 {
		out = append(out, jmhstyle.Param{Key: "seed", Value: strconv.FormatInt(s.Seed, 10)})
	}
	switch {
	case s.Gen != nil:
		out = append(out, jmhstyle.Param{Key: "generator", Value: sortedkeys.Version})
	case s.load != nil:
		if ks, err := s.Keys(); err == nil {
			out = append(out, jmhstyle.Param{Key: "keys-sha256", Value: ks.SHA256})
		}
	}
	return out
}

// NotInMemoryError is returned by Keys for a set that is streamed from a
// generator or a file and is, on purpose, never held in memory.
type NotInMemoryError struct{ Set string }

func (e *NotInMemoryError) Error() string {
	return "workload: set " + e.Set + " is streamed, never held in memory: only streaming workloads run on it"
}

// Catalog hands out sets, one per parameter combination, so workloads on
// the same set share its keys and index within a process.
type Catalog struct {
	// JumpSlots opens every lookup index of the catalog's sets with
	// partitionindex.OpenOptions.JumpSlots (bti bench --jump-slots). It is
	// not a parameter of the benchmark IDs, so that the same lookups can
	// be compared with and without it; set it before the first set.
	JumpSlots bool

	mu   sync.Mutex
	sets map[string]*Set
}

// NewCatalog returns an empty catalog.
func NewCatalog() *Catalog { return &Catalog{sets: map[string]*Set{}} }

// Generated returns the set cfg generates, named name ("set" parameter).
// Its parameters are keys, set and, for ByteOrdered or a prefix, prefix.
func (c *Catalog) Generated(cfg keygen.Config, name string) *Set {
	params := []jmhstyle.Param{{Key: "keys", Value: strconv.Itoa(cfg.Count)}, {Key: "set", Value: name}}
	if cfg.PrefixBytes > 0 || cfg.Partitioner == partitioner.ByteOrdered {
		params = append(params, jmhstyle.Param{Key: "prefix", Value: strconv.Itoa(cfg.PrefixBytes)})
	}
	return c.set(params, cfg.Count, int64(cfg.Seed), cfg.Count >= 1_000_000, func(s *Set) {
		s.load = func() (*Keys, error) {
			keys, err := cfg.Keys()
			if err != nil {
				return nil, err
			}
			return NewKeys(keys, keygen.Positions(len(keys), cfg.Seed)), nil
		}
	})
}

// Loaded returns a set with the given parameters made of ks (bti bench
// --in reads a keys.tsv).
func (c *Catalog) Loaded(params []jmhstyle.Param, ks *Keys) *Set {
	return c.set(params, len(ks.Keys), -1, false, func(s *Set) { s.load = func() (*Keys, error) { return ks, nil } })
}

// set returns the set of params, creating it with init (which says where
// its keys come from) if the catalog has none yet.
func (c *Catalog) set(params []jmhstyle.Param, count int, seed int64, huge bool, init func(*Set)) *Set {
	id := jmhstyle.Benchmark{Params: params}.ID()
	c.mu.Lock()
	defer c.mu.Unlock()
	if s, ok := c.sets[id]; ok {
		return s
	}
	s := &Set{Params: params, Count: count, Seed: seed, Huge: huge, jumpSlots: c.JumpSlots}
	init(s)
	c.sets[id] = s
	return s
}
