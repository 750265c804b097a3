package partitionindex

import (
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"

	"github.com/google/btree"
	"github.com/stretchr/testify/require"

	"github.com/bti-go/bti/bytecomparable"
	"github.com/bti-go/bti/internal/buildpath"
	"github.com/bti-go/bti/internal/keyset"
	"github.com/bti-go/bti/partitioner"
)

// The model: a B-tree of decorated keys in Cassandra's order. Every lookup
// the index answers is checked against it.

type modelEntry struct {
	key partitioner.Key
	pos int64
}

func modelLess(a, b modelEntry) bool { return partitioner.Compare(a.key, b.key) < 0 }

type model struct {
	tree  *btree.BTreeG[modelEntry]
	byPos map[int64][]byte // position -> raw key, the caller's data file
}

func newModel(p partitioner.Partitioner, raws [][]byte, positions []int64) *model {
	m := &model{tree: btree.NewG(16, modelLess), byPos: map[int64][]byte{}}
	for i, r := range raws {
		m.tree.ReplaceOrInsert(modelEntry{key: p.Decorate(r), pos: positions[i]})
		m.byPos[positions[i]] = r
	}
	return m
}

func (m *model) sorted() []modelEntry {
	var out []modelEntry
	m.tree.Ascend(func(e modelEntry) bool { out = append(out, e); return true })
	return out
}

// index returns the rank of the entry at pos, for messages.
func (m *model) index(pos int64) int {
	for i, e := range m.sorted() {
		if e.pos == pos {
			return i
		}
	}
	return -1
}

func (m *model) keyAt(pos int64) ([]byte, error) {
	raw, ok := m.byPos[pos]
	if !ok {
		return nil, fmt.Errorf("no key at position %d", pos)
	}
	return raw, nil
}

func (m *model) ceiling(k partitioner.Key) *modelEntry {
	var out *modelEntry
	m.tree.AscendGreaterOrEqual(modelEntry{key: k}, func(e modelEntry) bool { out = &e; return false })
	return out
}

func (m *model) floor(k partitioner.Key) *modelEntry {
	var out *modelEntry
	m.tree.DescendLessOrEqual(modelEntry{key: k}, func(e modelEntry) bool { out = &e; return false })
	return out
}

// nearest is the model's answer in direction dir: its ceiling (+1) or
// its floor (-1).
func (m *model) nearest(k partitioner.Key, dir int) *modelEntry {
	if dir < 0 {
		return m.floor(k)
	}
	return m.ceiling(k)
}

func (m *model) first() *modelEntry {
	e, ok := m.tree.Min()
	if !ok {
		return nil
	}
	return &e
}

func (m *model) last() *modelEntry {
	e, ok := m.tree.Max()
	if !ok {
		return nil
	}
	return &e
}

// lookupDir is one direction of the lookups a KeyAt confirms, Ceiling
// (dir +1) or Floor (dir -1), with every form a Reader offers of it; the
// tests run both directions through the same code.
type lookupDir struct {
	name              string
	dir               int
	byKey             func(rd *Reader, key *partitioner.Key, keyAt KeyAt) (int64, bool, error)
	byEncoded         func(rd *Reader, position []byte, keyAt KeyAt) (int64, bool, error)
	candidates        func(rd *Reader, key *partitioner.Key) (Candidates, error)
	candidatesEncoded func(rd *Reader, position []byte) (Candidates, error)
}

var lookupDirs = []lookupDir{
	{"Ceiling", +1, (*Reader).Ceiling, (*Reader).CeilingEncoded, (*Reader).CeilingCandidates, (*Reader).CeilingCandidatesEncoded},
	{"Floor", -1, (*Reader).Floor, (*Reader).FloorEncoded, (*Reader).FloorCandidates, (*Reader).FloorCandidatesEncoded},
}

// checkCandidates confirms c with the model's keys and compares the answer
// with the model's ceiling (dir +1) or floor (dir -1).
func (m *model) checkCandidates(what string, c Candidates, k partitioner.Key, dir int) error {
	want := m.nearest(k, dir)
	got, ok := c.Beyond, c.HasBeyond
	if c.HasOnPath {
		raw, err := m.keyAt(c.OnPath)
		if err != nil {
			return err
		}
		if dir*partitioner.Compare(k.Partitioner.Decorate(raw), k) >= 0 {
			got, ok = c.OnPath, true
		}
	}
	switch {
	case want == nil && ok:
		return fmt.Errorf("%s: confirmed %d, want none", what, got)
	case want != nil && (!ok || got != want.pos):
		return fmt.Errorf("%s: confirmed (%d, %v), want %d", what, got, ok, want.pos)
	}
	return nil
}

// randomBytes and randomBytesN are keyset's, shared with audit's tests, as
// the key shapes (keyset.Shapes) are.
func randomBytes(r *rand.Rand, minLen, maxLen int, alphabet []byte) []byte {
	return keyset.RandomBytes(r, minLen, maxLen, alphabet)
}

func randomBytesN(r *rand.Rand, n int, alphabet []byte) []byte {
	return keyset.RandomBytesN(r, n, alphabet)
}

// randomRaws16 returns n random 16-byte raw keys (with two keys alike
// about once in 2^64 draws): the large Murmur3 sets of the jump-table and
// jump-slot tests.
func randomRaws16(r *rand.Rand, n int) [][]byte {
	raws := make([][]byte, n)
	for i := range raws {
		raws[i] = randomBytesN(r, 16, nil)
	}
	return raws
}

// buildModel builds raws (deduplicated, sorted by the partitioner) on both
// paths, checks they agree, and returns the file and the model.
func buildModel(t *testing.T, p partitioner.Partitioner, raws [][]byte, r *rand.Rand, pageSize int) ([]byte, *model) {
	t.Helper()
	keys := keyset.Decorate(p, raws)
	// Unique positions: the model maps them back to keys.
	positions := keyset.UniquePositions(r, len(keys))
	file, err := keyset.BuildOnPaths(keys, positions, func(w io.Writer, path buildpath.Path) keyset.PathBuilder[Metadata] {
		return newPathBuilder(w, Options{Partitioner: p, PageSize: pageSize}, path)
	})
	require.NoError(t, err)
	return file, newModel(p, keyset.Raws(keys), positions)
}

// openModel builds raws with buildModel and opens a Reader on the file,
// closed when the test ends.
func openModel(t *testing.T, p partitioner.Partitioner, raws [][]byte, r *rand.Rand, pageSize int) (*model, *Reader) {
	t.Helper()
	file, m := buildModel(t, p, raws, r, pageSize)
	_, rd := openIndexReader(t, file, p)
	return m, rd
}

func TestModelLookups(t *testing.T) {
	for _, c := range keyset.ModelCases(keyset.ModelSizes(testing.Short())) {
		t.Run(c.Name(), func(t *testing.T) {
			r := c.Rand()
			file, m := buildModel(t, c.Partitioner, c.Shape.Gen(r, c.Keys), r, c.PageSize)
			checkAgainstModel(t, c.Partitioner, file, m, r)
		})
	}
}

// checkAgainstModel checks Get, Ceiling, Floor, First, Last and iteration
// in both directions against the model, for member keys and probes.
func checkAgainstModel(t *testing.T, p partitioner.Partitioner, file []byte, m *model, r *rand.Rand) {
	t.Helper()
	ix, rd := openIndexReader(t, file, p)
	entries := m.sorted()
	require.Equal(t, int64(len(entries)), ix.Count())
	require.Equal(t, entries[0].key.Raw, ix.FirstKey())
	require.Equal(t, entries[len(entries)-1].key.Raw, ix.LastKey())

	for _, e := range entries {
		pos, ok, err := rd.Get(&e.key)
		require.NoError(t, err)
		if !ok || pos != e.pos {
			t.Fatalf("member %d: got (%d, %v), want %d", m.index(e.pos), pos, ok, e.pos)
		}
	}

	// Probes: members, neighbours of members (byte appended, last byte
	// changed, truncated) and random keys.
	probes := make([][]byte, 0, 3*len(entries)+100)
	for _, e := range entries {
		raw := e.key.Raw
		probes = append(probes, append(slices.Clone(raw), byte(r.Uint32())))
		if len(raw) > 0 {
			c := slices.Clone(raw)
			c[len(c)-1] ^= byte(1 + r.IntN(255))
			probes = append(probes, c, raw[:len(raw)-1])
		}
	}
	for range 100 {
		probes = append(probes, randomBytes(r, 0, 10, nil))
	}
	if len(probes) > 3000 {
		r.Shuffle(len(probes), func(i, j int) { probes[i], probes[j] = probes[j], probes[i] })
		probes = probes[:3000]
	}
	var falsePositives, nonMembers int
	for pi, raw := range probes {
		k := p.Decorate(raw)
		ceil := m.ceiling(k)
		member := ceil != nil && partitioner.Compare(ceil.key, k) == 0

		pos, ok, err := rd.Get(&k)
		require.NoError(t, err)
		if member {
			require.True(t, ok)
			require.Equal(t, ceil.pos, pos)
		} else {
			nonMembers++
			if ok {
				falsePositives++ // a stored prefix and the hash byte matched
				stored, err := m.keyAt(pos)
				require.NoError(t, err, "a false positive must still point at an entry")
				require.NotEqual(t, raw, stored)
			}
		}

		for _, d := range lookupDirs {
			want := m.nearest(k, d.dir)
			pos, ok, err := d.byKey(rd, &k, m.keyAt)
			require.NoError(t, err)
			require.Equal(t, want != nil, ok, "%s of probe %d", d.name, pi)
			if want != nil && want.pos != pos {
				t.Fatalf("%s of probe %d (%d bytes, ends %x): got position %d (entry %d), want entry %d",
					d.name, pi, len(raw), raw[max(0, len(raw)-12):], pos, m.index(pos), m.index(want.pos))
			}
		}
	}
	// Hash-byte collisions let about 1 in 256 non-members through when they
	// share a stored prefix; allow a generous bound.
	require.LessOrEqual(t, falsePositives, nonMembers/32+3, "false positives among %d non-members", nonMembers)

	first, ok, err := rd.First()
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, entries[0].pos, first)
	last, ok, err := rd.Last()
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, entries[len(entries)-1].pos, last)

	// Full iteration both ways.
	var got []int64
	for it := rd.Scan(nil, nil); it.Next(); {
		got = append(got, it.Pos())
	}
	require.Len(t, got, len(entries))
	for i, e := range entries {
		require.Equal(t, e.pos, got[i])
	}
	got = got[:0]
	rit := rd.ScanReverse(nil, nil)
	for rit.Next() {
		got = append(got, rit.Pos())
	}
	require.NoError(t, rit.Err())
	require.Len(t, got, len(entries))
	for i, e := range entries {
		require.Equal(t, e.pos, got[len(got)-1-i])
	}

	// Constrained iteration between member bounds: exactly the entries
	// from start to end inclusive (bounds that are entries are reported,
	// as Cassandra's IndexPosIterator admits the exact start).
	for range 20 {
		i, j := r.IntN(len(entries)), r.IntN(len(entries))
		if i > j {
			i, j = j, i
		}
		got = got[:0]
		it := rd.Scan(&entries[i].key, &entries[j].key)
		for it.Next() {
			got = append(got, it.Pos())
		}
		require.NoError(t, it.Err())
		want := make([]int64, 0, j-i+1)
		for _, e := range entries[i : j+1] {
			want = append(want, e.pos)
		}
		require.Equal(t, want, got, "scan [%d, %d]", i, j)

		got = got[:0]
		rit := rd.ScanReverse(&entries[i].key, &entries[j].key)
		for rit.Next() {
			got = append(got, rit.Pos())
		}
		require.NoError(t, rit.Err())
		slices.Reverse(got)
		require.Equal(t, want, got, "reverse scan [%d, %d]", i, j)
	}
}

// An index of jumpMinBytes or more opens with the trie's jump table, and
// every lookup through it agrees with the model (and GetBatch with Get);
// a smaller one opens without.
func TestJumpTableIndex(t *testing.T) {
	if testing.Short() {
		t.Skip("300,000 keys: skipped under -short")
	}
	r := rand.New(rand.NewPCG(5, 6))
	raws := randomRaws16(r, 300_000)
	file, m := buildModel(t, partitioner.Murmur3, raws, r, 0)
	require.GreaterOrEqual(t, len(file), jumpMinBytes)
	ix, rd := openIndexReader(t, file, partitioner.Murmur3)
	require.True(t, ix.Trie().JumpTable(), "a %d-byte index opens with a jump table", len(file))
	checkAgainstModel(t, partitioner.Murmur3, file, m, r)

	var probes []partitioner.Key
	for i, e := range m.sorted() {
		if i%97 == 0 {
			probes = append(probes, e.key, partitioner.Murmur3.Decorate(append(e.key.Raw[:len(e.key.Raw):len(e.key.Raw)], 1)))
		}
	}
	checkBatchAgainstGet(t, rd, probes)

	small, _ := buildModel(t, partitioner.Murmur3, raws[:1000], r, 0)
	ix, err := NewIndex(small, OpenOptions{Partitioner: partitioner.Murmur3})
	require.NoError(t, err)
	require.False(t, ix.Trie().JumpTable(), "a %d-byte index opens without", len(small))
}

// TestCeilingFloorRequireKeyAt: without a KeyAt, Ceiling and Floor cannot
// confirm their answer and say so, rather than returning an unconfirmed
// candidate as if it were the answer (which, for probes whose path reaches
// an entry on the wrong side, it is not).
func TestCeilingFloorRequireKeyAt(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 8))
	m, rd := openModel(t, partitioner.ByteOrdered, keyset.Shapes[4].Gen(r, 200), r, 0)
	// A probe just above a member whose stored prefix it shares: the
	// entry on its path is smaller than the probe, not its ceiling.
	entries := m.sorted()
	k := partitioner.ByteOrdered.Decorate(append([]byte{}, append(entries[0].key.Raw, 0xFF, 0xFF)...))
	enc := k.AppendComparable(nil)
	for _, d := range lookupDirs {
		_, _, err := d.byKey(rd, &k, nil)
		require.ErrorIs(t, err, ErrNoKeyAt, d.name)
		_, _, err = d.byEncoded(rd, enc, nil)
		require.ErrorIs(t, err, ErrNoKeyAt, d.name+"Encoded")
	}
}

// TestCandidatesModel: the raw candidates, confirmed by hand with the
// model's keys, give the model's ceiling and floor; Beyond always lies
// strictly on the wanted side; and the confirmed calls agree.
func TestCandidatesModel(t *testing.T) {
	for _, p := range []partitioner.Partitioner{partitioner.ByteOrdered, partitioner.Murmur3, partitioner.Random} {
		for _, ks := range []keyset.Shape{keyset.Shapes[2], keyset.Shapes[4]} {
			t.Run(fmt.Sprintf("%v/%s", p, ks.Name), func(t *testing.T) {
				r := rand.New(rand.NewPCG(1, uint64(p)))
				m, rd := openModel(t, p, ks.Gen(r, 500), r, 64)
				byPos := map[int64]partitioner.Key{}
				for _, e := range m.sorted() {
					byPos[e.pos] = e.key
				}
				wrongSide := 0
				for _, k := range probeKeys(r, p, m.sorted(), 2000) {
					for _, d := range lookupDirs {
						dir, want := d.dir, m.nearest(k, d.dir)
						c, err := d.candidates(rd, &k)
						require.NoError(t, err)
						ce, err := d.candidatesEncoded(rd, k.AppendComparable(nil))
						require.NoError(t, err)
						require.Equal(t, c, ce, "encoded form")
						side := func(pos int64) int { return dir * partitioner.Compare(byPos[pos], k) }
						if c.HasBeyond {
							require.Positive(t, side(c.Beyond), "Beyond of %x dir %d is not strictly beyond the probe", k.Raw, dir)
						}
						var got *int64
						switch {
						case c.HasOnPath && side(c.OnPath) >= 0:
							got = &c.OnPath
						case c.HasOnPath:
							wrongSide++
							fallthrough
						case c.HasBeyond:
							if c.HasBeyond {
								got = &c.Beyond
							}
						}
						if want == nil {
							require.Nil(t, got, "probe %x dir %d", k.Raw, dir)
							continue
						}
						require.NotNil(t, got, "probe %x dir %d", k.Raw, dir)
						require.Equal(t, want.pos, *got, "probe %x dir %d", k.Raw, dir)
					}
				}
				// The probes include keys sharing members' prefixes, so some
				// on-path candidates lie on the wrong side: the reason a
				// confirmation is needed at all.
				require.Positive(t, wrongSide, "no probe met a wrong-side candidate")
			})
		}
	}
}

// Range reads by token: the bounds of a Murmur3 token (sorting before or
// after every key of that token) as ceiling, floor and scan positions,
// checked against the model.
func TestTokenBoundLookups(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 11))
	var raws [][]byte
	for range 5000 {
		raws = append(raws, randomBytes(r, 1, 12, nil))
	}
	m, rd := openModel(t, partitioner.Murmur3, raws, r, 0)
	entries := m.sorted()

	// Tokens to probe: those of entries (bounds touching a key) and random.
	var tokens []int64
	for range 300 {
		tokens = append(tokens, entries[r.IntN(len(entries))].key.Token, int64(r.Uint64()))
	}
	var lo, hi []byte
	for _, tok := range tokens {
		lo = bytecomparable.AppendLongTokenBound(lo[:0], tok, false)
		hi = bytecomparable.AppendLongTokenBound(hi[:0], tok, true)
		// The first entry with token >= tok, the last with token <= tok.
		first := sort.Search(len(entries), func(i int) bool { return entries[i].key.Token >= tok })
		last := sort.Search(len(entries), func(i int) bool { return entries[i].key.Token > tok }) - 1
		if first == len(entries) {
			first = -1
		}
		pos, ok, err := rd.CeilingEncoded(lo, m.keyAt)
		require.NoError(t, err)
		require.Equal(t, first >= 0, ok, "ceiling of min bound %d", tok)
		if first >= 0 {
			require.Equal(t, entries[first].pos, pos, "ceiling of min bound %d", tok)
		}
		pos, ok, err = rd.FloorEncoded(hi, m.keyAt)
		require.NoError(t, err)
		require.Equal(t, last >= 0, ok, "floor of max bound %d", tok)
		if last >= 0 {
			require.Equal(t, entries[last].pos, pos, "floor of max bound %d", tok)
		}
	}

	// A scan between two token bounds yields every key in the range, plus
	// at most one candidate just outside at each end (entries are prefixes;
	// callers check the real keys at both ends, as Cassandra does).
	for range 100 {
		t1, t2 := int64(r.Uint64()), int64(r.Uint64())
		if t1 > t2 {
			t1, t2 = t2, t1
		}
		lo = bytecomparable.AppendLongTokenBound(lo[:0], t1, false)
		hi = bytecomparable.AppendLongTokenBound(hi[:0], t2, true)
		var got []int64
		it := rd.ScanEncoded(lo, hi)
		for it.Next() {
			got = append(got, it.Pos())
		}
		require.NoError(t, it.Err())
		var want []int64
		for _, e := range entries {
			if e.key.Token >= t1 && e.key.Token <= t2 {
				want = append(want, e.pos)
			}
		}
		returned := map[int64]bool{}
		for _, p := range got {
			returned[p] = true
		}
		for _, p := range want {
			require.True(t, returned[p], "scan [%d, %d] misses the key at %d", t1, t2, p)
		}
		require.LessOrEqual(t, len(got), len(want)+2, "scan [%d, %d] returns more than one extra candidate per end", t1, t2)
	}
}
