package partitionindex

import (
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/google/btree"
	"github.com/stretchr/testify/require"

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

// randomBytes and randomBytesN are keyset's, shared with audit's tests, as
// the key shapes (keyset.Shapes) are.
func randomBytes(r *rand.Rand, minLen, maxLen int, alphabet []byte) []byte {
	return keyset.RandomBytes(r, minLen, maxLen, alphabet)
}

func randomBytesN(r *rand.Rand, n int, alphabet []byte) []byte {
	return keyset.RandomBytesN(r, n, alphabet)
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
