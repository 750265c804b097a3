package workload

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	mrand "math/rand/v2"
	"os"
	"path/filepath"
	"strconv"

	"github.com/bti-go/bti/internal/keystsv"
	"github.com/bti-go/bti/internal/sortedkeys"
	"github.com/bti-go/bti/jmhstyle"
	"github.com/bti-go/bti/partitioner"
	"github.com/bti-go/bti/partitionindex"
)

// EnvCache names the directory where the lookups on streamed sets keep
// their index files (default: bti-bench under os.UserCacheDir).
const EnvCache = "BTI_BENCH_CACHE"

// indexLayout tags the cached index files with the builder's output: an
// index of the same keys written by a builder that lays them out
// differently is still a correct index but a different benchmark. Bump it
// when the writer's layout changes (the old files are then left unused;
// delete them by hand).
const indexLayout = "layout1"

// CacheDir returns the directory of the cached index files: $BTI_BENCH_CACHE,
// else bti-bench under os.UserCacheDir.
func CacheDir() (string, error) {
	if d := os.Getenv(EnvCache); d != "" {
		return d, nil
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("workload: no cache directory for index files (set %s): %w", EnvCache, err)
	}
	return filepath.Join(d, "bti-bench"), nil
}

// cacheName is the file name of gen's cached index: generator version,
// size, seed and layout, so a file is reused only for exactly its keys.
func cacheName(gen *sortedkeys.Set) string {
	return fmt.Sprintf("%s-keys%d-seed%d-%s.Partitions.db", sortedkeys.Version, gen.Count(), gen.Seed(), indexLayout)
}

// cachedIndex returns the path of gen's index file in the cache, building
// it first if it is not there or is not gen's. The build streams the keys
// from the generator into a temporary file in the same directory, synced
// and then renamed, so a file under the cache name is always complete.
func cachedIndex(gen *sortedkeys.Set) (string, error) {
	dir, err := CacheDir()
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, cacheName(gen))
	if ok, err := isIndexOf(path, gen); ok || err != nil {
		return path, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("workload: index cache: %w", err)
	}
	var suffix [4]byte
	_, _ = rand.Read(suffix[:]) // never fails (crypto/rand); O_EXCL catches a clash
	tmp := filepath.Join(dir, "."+cacheName(gen)+".incomplete-"+strconv.Itoa(os.Getpid())+"-"+hex.EncodeToString(suffix[:]))
	if err := writeIndex(tmp, gen); err != nil {
		_ = os.Remove(tmp)
		return "", fmt.Errorf("workload: building %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		_ = os.Remove(tmp)
		return "", fmt.Errorf("workload: index cache: %w", err)
	}
	return path, nil
}

// isIndexOf reports whether path holds gen's index: its key count and
// first key are gen's. A missing file is not an error; an unreadable or
// foreign one is replaced (false, nil).
func isIndexOf(path string, gen *sortedkeys.Set) (bool, error) {
	if _, err := os.Stat(path); os.IsNotExist(err) {
		return false, nil
	}
	ix, err := partitionindex.Open(path, partitionindex.OpenOptions{Partitioner: partitioner.Murmur3})
	if err != nil {
		return false, nil
	}
	defer ix.Close()
	var raw [sortedkeys.KeyLen]byte
	first := gen.Key(0, &raw)
	return ix.Count() == int64(gen.Count()) && bytes.Equal(ix.FirstKey(), first.Raw), nil
}

func writeIndex(path string, gen *sortedkeys.Set) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	b := partitionindex.NewBuilder(w, partitionindex.Options{Partitioner: partitioner.Murmur3})
	var raw [sortedkeys.KeyLen]byte
	for i := range gen.Count() {
		k := gen.Key(i, &raw)
		if err := b.Add(&k, gen.Pos(i)); err != nil {
			f.Close()
			return err
		}
	}
	_, err = b.Complete()
	if err == nil {
		err = w.Flush()
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// newStreamLookup is the lookup fixture of a streamed set: its cached
// index file (each workload thread maps its own, see lookupData.reader)
// and probes regenerated from the generator by index,
// so nothing but the probes is held. Hits are the keys at MaxProbes
// random indexes; misses are sortedkeys.Miss of the same indexes, absent
// by construction (a token strictly between two neighbours').
func newStreamLookup(s *Set) (*lookupData, error) {
	if s.genErr != nil {
		return nil, s.genErr
	}
	gen := s.Gen
	path, err := cachedIndex(gen)
	if err != nil {
		return nil, err
	}
	n := min(gen.Count(), MaxProbes)
	rng := mrand.New(mrand.NewPCG(ProbeSeed1, ProbeSeed2))
	lk := &lookupData{path: path, part: partitioner.Murmur3, slots: s.jumpSlots}
	arena := make([]byte, 2*n*sortedkeys.KeyLen)
	var raw [sortedkeys.KeyLen]byte
	for range n {
		i := rng.IntN(gen.Count())
		k := gen.Key(i, &raw)
		k.Raw = arena[:sortedkeys.KeyLen:sortedkeys.KeyLen]
		copy(k.Raw, raw[:])
		arena = arena[sortedkeys.KeyLen:]
		lk.hits = append(lk.hits, k)
		lk.hitPos = append(lk.hitPos, gen.Pos(i))
		if m, ok := gen.Miss(i, &raw); ok {
			m.Raw = arena[:sortedkeys.KeyLen:sortedkeys.KeyLen]
			copy(m.Raw, raw[:])
			lk.misses = append(lk.misses, m)
		}
		arena = arena[sortedkeys.KeyLen:]
	}
	if len(lk.misses) == 0 {
		lk.misses = lk.hits[:1] // a set whose tokens fill the range: measure something
	}
	return lk, nil
}

// Indexed returns the set of an existing index file and the keys.tsv that
// lists its keys (bti bench --index --in), decorated with p. Its
// parameters are those of a set loaded from keys.tsv (keys, set,
// partitioner), keys being the index's count, so the two modes name the
// same set alike. Only the index footer is read here.
func (c *Catalog) Indexed(indexPath, keysPath string, p partitioner.Partitioner) (*Set, error) {
	ix, err := partitionindex.Open(indexPath, partitionindex.OpenOptions{Partitioner: p})
	if err != nil {
		return nil, err
	}
	n := ix.Count()
	if err := ix.Close(); err != nil {
		return nil, err
	}
	params := []jmhstyle.Param{
		{Key: "keys", Value: strconv.FormatInt(n, 10)},
		{Key: "set", Value: filepath.Base(keysPath)},
		{Key: "partitioner", Value: p.String()},
	}
	return c.set(params, int(n), -1, false, func(s *Set) {
		s.IndexPath, s.keysPath, s.part = indexPath, keysPath, p
	}), nil
}

// NotInIndexError reports a sampled line of keys.tsv whose key the index
// does not find at the line's position: the keys.tsv is not the index's,
// and a benchmark of it would measure misses as hits.
type NotInIndexError struct {
	Keys, Index string
	Line        int
	Key         []byte
	Found       bool  // the index has a candidate for the key
	Pos, Want   int64 // its position, and the line's
}

func (e *NotInIndexError) Error() string {
	if !e.Found {
		return fmt.Sprintf("workload: %s line %d: key %x is not in %s", e.Keys, e.Line, e.Key, e.Index)
	}
	return fmt.Sprintf("workload: %s line %d: key %x is at position %d in %s, but the line says %d", e.Keys, e.Line, e.Key, e.Pos, e.Index, e.Want)
}

// sampled is one reservoir entry: a key of keys.tsv, its position and line.
type sampled struct {
	raw  []byte
	pos  int64
	line int
}

// newFileLookup is the lookup fixture of an existing index: the file
// (each workload thread maps its own) and MaxProbes keys reservoir-sampled (Algorithm R) from keys.tsv
// in one streaming pass, then shuffled, so only the sample is held.
// Every sampled key must be in the index at its line's position, else
// *NotInIndexError names the line: with up to MaxProbes keys that is
// every key. Misses are sampled keys with one random byte appended;
// a second streaming pass drops any that keys.tsv holds, so every miss
// is absent from the set (the index may still return a candidate for it,
// as Cassandra's does before it checks the data file).
func newFileLookup(s *Set) (*lookupData, error) {
	ix, err := partitionindex.Open(s.IndexPath, partitionindex.OpenOptions{Partitioner: s.part})
	if err != nil {
		return nil, err
	}
	rng := mrand.New(mrand.NewPCG(ProbeSeed1, ProbeSeed2))
	var res []sampled
	lines := 0
	err = eachLine(s.keysPath, func(raw []byte, pos int64, line int) {
		lines++
		switch {
		case len(res) < MaxProbes:
			res = append(res, sampled{raw: bytes.Clone(raw), pos: pos, line: line})
		default:
			if r := rng.IntN(lines); r < MaxProbes {
				res[r] = sampled{raw: append(res[r].raw[:0], raw...), pos: pos, line: line}
			}
		}
	})
	if err == nil && len(res) == 0 {
		err = fmt.Errorf("%s: no keys to benchmark", s.keysPath)
	}
	if err != nil {
		ix.Close()
		return nil, err
	}
	rng.Shuffle(len(res), func(i, j int) { res[i], res[j] = res[j], res[i] })
	// The probes are checked through this mapping, which is then closed:
	// the pages it touched must not stay pinned, or the cold lookups could
	// not evict them.
	defer ix.Close()
	lk := &lookupData{path: s.IndexPath, part: s.part, slots: s.jumpSlots}
	rd, err := ix.OpenReader()
	if err != nil {
		return nil, err
	}
	defer rd.Close()
	missRaw := map[string]int{} // miss raw key -> index in misses
	var misses [][]byte
	for _, e := range res {
		k := s.part.Decorate(e.raw)
		pos, ok, err := rd.Get(&k)
		if err != nil {
			return nil, err
		}
		if !ok || pos != e.pos {
			return nil, &NotInIndexError{Keys: s.keysPath, Index: s.IndexPath, Line: e.line, Key: e.raw, Found: ok, Pos: pos, Want: e.pos}
		}
		lk.hits = append(lk.hits, k)
		lk.hitPos = append(lk.hitPos, e.pos)
		m := append(bytes.Clone(e.raw), byte(rng.Uint32()))
		if _, dup := missRaw[string(m)]; !dup {
			missRaw[string(m)] = len(misses)
			misses = append(misses, m)
		}
	}
	present := make([]bool, len(misses))
	err = eachLine(s.keysPath, func(raw []byte, _ int64, _ int) {
		if i, ok := missRaw[string(raw)]; ok {
			present[i] = true
		}
	})
	if err != nil {
		return nil, err
	}
	for i, m := range misses {
		if !present[i] {
			lk.misses = append(lk.misses, s.part.Decorate(m))
		}
	}
	if len(lk.misses) == 0 {
		lk.misses = lk.hits[:1] // every derived miss was present: measure something
	}
	return lk, nil
}

// eachLine streams the keys.tsv at path through f (raw is valid during
// the call only).
func eachLine(path string, f func(raw []byte, pos int64, line int)) error {
	r, err := keystsv.Open(path)
	if err != nil {
		return err
	}
	defer r.Close()
	kr := keystsv.NewReader(r)
	for kr.Next() {
		f(kr.Key(), kr.Pos(), kr.Line())
	}
	if err := kr.Err(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}
