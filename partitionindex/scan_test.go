package partitionindex

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/bti-go/bti/internal/keyset"
	"github.com/bti-go/bti/partitioner"
)

// Scans, and what else a Reader handle may do while one runs: the scan
// contract first, then aliasing.

// The scan contract, black box: what the package documents for Scan and
// ScanReverse (and their Encoded forms), checked against the B-tree model.
//
// A scan from start to end yields, in key order (descending for the
// reverse forms), every entry whose key lies in [start, end], and besides
// them at most the entry just before the first of them (when start is given
// and is not a key of the index) and the entry just after the last of them
// (when end is given and is not a key), since entries are stored prefixes
// that may stand for keys just outside the bounds. A range with start after
// end yields nothing.

// scanWindow returns the model indexes [a, b] of every entry a scan may
// yield (the in-range entries widened by the allowed neighbours), and the
// in-range part [i, j] (j < i when no key lies in the range).
func scanWindow(entries []modelEntry, start, end *partitioner.Key) (i, j int, lowExtra, highExtra bool) {
	n := len(entries)
	i, j = 0, n-1
	if start != nil {
		i, _ = slices.BinarySearchFunc(entries, *start, func(e modelEntry, k partitioner.Key) int { return partitioner.Compare(e.key, k) })
		lowExtra = i > 0 && (i == n || partitioner.Compare(entries[i].key, *start) != 0)
	}
	if end != nil {
		found := false
		j, found = slices.BinarySearchFunc(entries, *end, func(e modelEntry, k partitioner.Key) int { return partitioner.Compare(e.key, k) })
		if !found {
			j--
		}
		highExtra = j+1 < n && !found
	}
	return i, j, lowExtra, highExtra
}

// checkScanAgainstModel checks one scan's result (in ascending order) against the
// contract.
func checkScanAgainstModel(entries []modelEntry, start, end *partitioner.Key, got []int64) error {
	if start != nil && end != nil && partitioner.Compare(*start, *end) > 0 {
		if len(got) > 0 {
			return fmt.Errorf("start after end: got %d entries, want none", len(got))
		}
		return nil
	}
	i, j, lowExtra, highExtra := scanWindow(entries, start, end)
	// got must be entries[a..b] with a in {i, i-1 if lowExtra} and b in
	// {j, j+1 if highExtra}.
	rank := map[int64]int{}
	for r, e := range entries {
		rank[e.pos] = r
	}
	a := i
	if len(got) > 0 && lowExtra && rank[got[0]] == i-1 {
		a = i - 1
	}
	b := j
	if len(got) > 0 && highExtra && rank[got[len(got)-1]] == j+1 {
		b = j + 1
	}
	var want []int64
	for r := a; r <= b; r++ {
		want = append(want, entries[r].pos)
	}
	if !slices.Equal(want, got) {
		return fmt.Errorf("got ranks %v, want ranks %d..%d (in range %d..%d)", modelRanks(rank, got), a, b, i, j)
	}
	return nil
}

func modelRanks(rank map[int64]int, pos []int64) []int {
	var out []int
	for _, p := range pos {
		if r, ok := rank[p]; ok {
			out = append(out, r)
		} else {
			out = append(out, -1)
		}
	}
	return out
}

// probeKeys returns scan bounds for the model's keys: members, their
// prefixes and extensions, neighbours with 00 and FF bytes, random keys.
func probeKeys(r *rand.Rand, p partitioner.Partitioner, entries []modelEntry, n int) []partitioner.Key {
	var out []partitioner.Key
	for range n {
		e := entries[r.IntN(len(entries))].key.Raw
		var raw []byte
		switch r.IntN(7) {
		case 0:
			raw = e
		case 1:
			raw = e[:r.IntN(len(e)+1)]
		case 2:
			raw = append(slices.Clone(e), []byte{0x00, 0xFF}[r.IntN(2)])
		case 3:
			raw = append(slices.Clone(e), 0xFF, 0xFF)
		case 4:
			raw = append(slices.Clone(e), 0x00, 0x00)
		case 5:
			raw = slices.Clone(e)
			if len(raw) > 0 {
				raw[len(raw)-1] += byte(1 + r.IntN(2))
			}
		default:
			raw = randomBytes(r, 0, 5, []byte{0x00, 0x01, 'a', 'b', 0xFE, 0xFF})
		}
		out = append(out, p.Decorate(raw))
	}
	return out
}

// scanModel runs one scan kind and returns the positions in ascending order.
func scanModel(t *testing.T, rd *Reader, kind scanKind, start, end *partitioner.Key) []int64 {
	t.Helper()
	got, err := collectPositions(kind.start(rd, start, end), nil)
	require.NoError(t, err)
	if kind.reverse {
		slices.Reverse(got)
	}
	return got
}

// TestScanContractModel: every scan kind over ranges between probes, both
// bounds, one, or none, on key sets with prefixes on each other's paths
// and 00/FF-heavy keys, with default and tiny pages.
func TestScanContractModel(t *testing.T) {
	sets := []keyset.Shape{keyset.Shapes[2], keyset.Shapes[4], {Name: "tiny-alphabet", Gen: func(r *rand.Rand, n int) [][]byte {
		out := make([][]byte, n)
		for i := range out {
			out[i] = randomBytes(r, 0, 4, []byte{0x00, 0xFF})
		}
		return out
	}}}
	for _, p := range []partitioner.Partitioner{partitioner.ByteOrdered, partitioner.Murmur3, partitioner.Random} {
		for _, ks := range sets {
			for _, n := range []int{1, 2, 3, 5, 20, 300} {
				for _, pageSize := range []int{0, 64} {
					t.Run(fmt.Sprintf("%v/%s/n=%d/page=%d", p, ks.Name, n, pageSize), func(t *testing.T) {
						r := rand.New(rand.NewPCG(uint64(n), uint64(pageSize)))
						m, rd := openModel(t, p, ks.Gen(r, n), r, pageSize)
						entries := m.sorted()
						probes := probeKeys(r, p, entries, 60)
						for x := range probes {
							for _, y := range []int{x, (x + 1) % len(probes), r.IntN(len(probes))} {
								lo, hi := &probes[x], &probes[y]
								for _, b := range [][2]*partitioner.Key{{lo, hi}, {hi, lo}, {lo, nil}, {nil, hi}, {nil, nil}} {
									for _, kind := range scanKinds {
										got := scanModel(t, rd, kind, b[0], b[1])
										if err := checkScanAgainstModel(entries, b[0], b[1], got); err != nil {
											t.Fatalf("%s %s: %v", kind.name, boundsName(b), err)
										}
									}
								}
							}
						}
					})
				}
			}
		}
	}
}

// TestScanContractCases are the cases the issue reported, by name.
func TestScanContractCases(t *testing.T) {
	bo := partitioner.ByteOrdered
	key := func(s string) *partitioner.Key { k := bo.Decorate([]byte(s)); return &k }
	for _, c := range []struct {
		name       string
		keys       []string // sorted; key i is at position i
		start, end *partitioner.Key
		want       []int64 // ascending
	}{
		{"reverse from the last key, unbounded end", []string{"a", "b"}, key("b"), nil, []int64{1}},
		{"one key, reverse from it", []string{"a"}, key("a"), nil, []int64{0}},
		{"one key, reverse from below it", []string{"a"}, key(""), nil, []int64{0}},
		// The one key is stored as the empty prefix, on every key's path:
		// it is the candidate just below start, in both directions.
		{"one key, from above it", []string{"a"}, key("b"), nil, []int64{0}},
		{"two keys, from above both", []string{"a", "b"}, key("c"), nil, nil},
		{"inverted bounds", []string{"a", "aa"}, key("b"), key("aa"), nil},
		{"inverted bounds, both keys", []string{"a", "aa"}, key("aa"), key("a"), nil},
		{"single point", []string{"a", "aa"}, key("aa"), key("aa"), []int64{1}},
	} {
		var raws [][]byte
		for _, k := range c.keys {
			raws = append(raws, []byte(k))
		}
		_, rd := openIndexReader(t, buildRaw(t, bo, raws, Options{}), bo)
		for _, kind := range scanKinds {
			got := scanModel(t, rd, kind, c.start, c.end)
			require.Equal(t, c.want, got, "%s: %s", c.name, kind.name)
		}
	}
}

// TestScanContractEncodedBoundsCopied: the Encoded forms copy their bounds;
// overwriting the caller's bytes after the call changes nothing.
func TestScanContractEncodedBoundsCopied(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	for _, p := range []partitioner.Partitioner{partitioner.ByteOrdered, partitioner.Murmur3} {
		m, rd := openModel(t, p, keyset.Shapes[4].Gen(r, 200), r, 64)
		probes := probeKeys(r, p, m.sorted(), 200)
		for x := 0; x+1 < len(probes); x += 2 {
			lo, hi := probes[x], probes[x+1]
			if partitioner.Compare(lo, hi) > 0 {
				lo, hi = hi, lo
			}
			for _, reverse := range []bool{false, true} {
				for _, bounds := range [][2]bool{{true, true}, {true, false}, {false, true}} {
					var loEnc, hiEnc []byte
					if bounds[0] {
						loEnc = lo.AppendComparable(nil)
					}
					if bounds[1] {
						hiEnc = hi.AppendComparable(nil)
					}
					start := func() *Iterator {
						if reverse {
							return rd.ScanReverseEncoded(loEnc, hiEnc)
						}
						return rd.ScanEncoded(loEnc, hiEnc)
					}
					want, err := collectPositions(start(), nil)
					require.NoError(t, err)
					it := start()
					for _, b := range [][]byte{loEnc, hiEnc} {
						for i := range b {
							b[i] = 0xFF - b[i]
						}
					}
					got, err := collectPositions(it, nil)
					require.NoError(t, err)
					require.Equal(t, want, got, "reverse=%v bounds %v", reverse, bounds)
				}
			}
		}
		require.NoError(t, rd.Close())
	}
}

// Aliasing: a Reader handle keeps scratch memory (the encoded lookup key, a
// candidate's encoding). An iterator must not keep its bounds there, and a
// lookup must not compare against scratch that a KeyAt callback can
// overwrite: every other operation of the same handle may run between two
// Next calls (or inside KeyAt) without changing any answer.

// handleOp is one operation on a handle, run between Next calls; it checks its
// own answer against the model.
type handleOp struct {
	name string
	run  func(rd *Reader, probe partitioner.Key, enc []byte) error
}

func handleOps(m *model) []handleOp {
	answer := func(what string, pos int64, ok bool, err error, want *modelEntry) error {
		switch {
		case err != nil:
			return fmt.Errorf("%s: %v", what, err)
		case want == nil && ok:
			return fmt.Errorf("%s: got %d, want none", what, pos)
		case want != nil && (!ok || pos != want.pos):
			return fmt.Errorf("%s: got (%d, %v), want %d", what, pos, ok, want.pos)
		}
		return nil
	}
	entries, hit := m.sorted(), 0
	ops := []handleOp{
		{"Get", func(rd *Reader, k partitioner.Key, _ []byte) error {
			pos, ok, err := rd.Get(&k)
			if err != nil {
				return err
			}
			if e := m.ceiling(k); e != nil && partitioner.Compare(e.key, k) == 0 && (!ok || pos != e.pos) {
				return fmt.Errorf("Get: got (%d, %v), want %d", pos, ok, e.pos)
			}
			return nil
		}},
		{"GetBatch", func(rd *Reader, k partitioner.Key, _ []byte) error {
			// The probe, a key of the index, and the probe again: more
			// than one lane, a hit among them.
			hit = (hit + 7) % len(entries)
			keys := []partitioner.Key{k, entries[hit].key, k}
			res := rd.GetBatch(nil, keys)
			if len(res) != len(keys) {
				return fmt.Errorf("GetBatch: %d results for %d keys", len(res), len(keys))
			}
			for i, key := range keys {
				if res[i].Err != nil {
					return fmt.Errorf("GetBatch key %d: %v", i, res[i].Err)
				}
				if e := m.ceiling(key); e != nil && partitioner.Compare(e.key, key) == 0 && (!res[i].OK || res[i].Pos != e.pos) {
					return fmt.Errorf("GetBatch key %d: got (%d, %v), want %d", i, res[i].Pos, res[i].OK, e.pos)
				}
			}
			return nil
		}},
		{"First", func(rd *Reader, _ partitioner.Key, _ []byte) error {
			pos, ok, err := rd.First()
			return answer("First", pos, ok, err, m.first())
		}},
		{"Last", func(rd *Reader, _ partitioner.Key, _ []byte) error {
			pos, ok, err := rd.Last()
			return answer("Last", pos, ok, err, m.last())
		}},
	}
	for _, d := range lookupDirs {
		ops = append(ops,
			handleOp{d.name, func(rd *Reader, k partitioner.Key, _ []byte) error {
				pos, ok, err := d.byKey(rd, &k, m.keyAt)
				return answer(d.name, pos, ok, err, m.nearest(k, d.dir))
			}},
			handleOp{d.name + "Encoded", func(rd *Reader, k partitioner.Key, enc []byte) error {
				pos, ok, err := d.byEncoded(rd, enc, m.keyAt)
				return answer(d.name+"Encoded", pos, ok, err, m.nearest(k, d.dir))
			}},
			handleOp{d.name + "Candidates", func(rd *Reader, k partitioner.Key, enc []byte) error {
				c, err := d.candidates(rd, &k)
				if err != nil {
					return err
				}
				if ce, err := d.candidatesEncoded(rd, enc); err != nil || ce != c {
					return fmt.Errorf("%sCandidatesEncoded: %+v %v, want %+v", d.name, ce, err, c)
				}
				return m.checkCandidates(d.name+"Candidates", c, k, d.dir)
			}})
	}
	return ops
}

// scanKind is one way to start an iteration between two keys.
type scanKind struct {
	name    string
	reverse bool
	start   func(rd *Reader, lo, hi *partitioner.Key) *Iterator
}

var scanKinds = []scanKind{
	{"Scan", false, func(rd *Reader, lo, hi *partitioner.Key) *Iterator { return rd.Scan(lo, hi) }},
	{"ScanReverse", true, func(rd *Reader, lo, hi *partitioner.Key) *Iterator { return rd.ScanReverse(lo, hi) }},
	{"ScanEncoded", false, func(rd *Reader, lo, hi *partitioner.Key) *Iterator {
		return rd.ScanEncoded(encodeFresh(lo), encodeFresh(hi))
	}},
	{"ScanReverseEncoded", true, func(rd *Reader, lo, hi *partitioner.Key) *Iterator {
		return rd.ScanReverseEncoded(encodeFresh(lo), encodeFresh(hi))
	}},
}

// encodeFresh encodes k into fresh memory (nil for nil).
func encodeFresh(k *partitioner.Key) []byte {
	if k == nil {
		return nil
	}
	return k.AppendComparable(nil)
}

func collectPositions(it *Iterator, between func()) ([]int64, error) {
	var got []int64
	for it.Next() {
		got = append(got, it.Pos())
		if between != nil {
			between()
		}
	}
	return got, it.Err()
}

// TestAliasingInterleaved runs every scan kind over random ranges, and
// between every two Next calls runs another operation of the same handle
// (each operation in turn, on random probes); the scan yields exactly what
// it yields on a handle nothing else touches, which is what the model
// allows (the scan contract), and every interleaved operation answers as
// the model says.
func TestAliasingInterleaved(t *testing.T) {
	for _, p := range []partitioner.Partitioner{partitioner.Murmur3, partitioner.ByteOrdered} {
		for _, ks := range keyset.Shapes {
			if ks.Name == "long-shared-prefix" {
				continue
			}
			t.Run(fmt.Sprintf("%v/%s", p, ks.Name), func(t *testing.T) {
				r := rand.New(rand.NewPCG(21, uint64(len(ks.Name))))
				file, m := buildModel(t, p, ks.Gen(r, 300), r, 64)
				ix, err := NewIndex(file, OpenOptions{Partitioner: p})
				require.NoError(t, err)
				quiet, err := ix.OpenReader()
				require.NoError(t, err)
				defer quiet.Close()
				busy, err := ix.OpenReader()
				require.NoError(t, err)
				defer busy.Close()
				entries := m.sorted()
				probe := func() partitioner.Key {
					if r.IntN(2) == 0 {
						return entries[r.IntN(len(entries))].key
					}
					return p.Decorate(randomBytes(r, 0, 6, []byte{0, 1, 'a', 'b', 0xff}))
				}
				ops := handleOps(m)
				for round := range 40 {
					lo, hi := probe(), probe()
					if partitioner.Compare(lo, hi) > 0 {
						lo, hi = hi, lo
					}
					bounds := [][2]*partitioner.Key{{&lo, &hi}, {&lo, nil}, {nil, &hi}, {nil, nil}}
					for _, kind := range scanKinds {
						for _, b := range bounds {
							want, err := collectPositions(kind.start(quiet, b[0], b[1]), nil)
							require.NoError(t, err)
							asc := slices.Clone(want)
							if kind.reverse {
								slices.Reverse(asc)
							}
							require.NoError(t, checkScanAgainstModel(entries, b[0], b[1], asc), "round %d: %s %s on a quiet handle", round, kind.name, boundsName(b))
							for _, op := range ops {
								var opErr error
								got, err := collectPositions(kind.start(busy, b[0], b[1]), func() {
									k := probe()
									if err := op.run(busy, k, k.AppendComparable(nil)); err != nil && opErr == nil {
										opErr = err
									}
								})
								require.NoError(t, err)
								require.NoError(t, opErr, "%s between Next calls of %s", op.name, kind.name)
								require.Equal(t, want, got, "round %d: %s %s with %s between Next calls", round, kind.name, boundsName(b), op.name)
							}
						}
					}
				}
			})
		}
	}
}

func boundsName(b [2]*partitioner.Key) string {
	s := func(k *partitioner.Key) string {
		if k == nil {
			return "nil"
		}
		return fmt.Sprintf("%x", k.Raw)
	}
	return "[" + s(b[0]) + ", " + s(b[1]) + "]"
}

// TestAliasingKeyAtReentry: a KeyAt callback that itself uses the same
// handle (Get, Floor, GetBatch, CeilingCandidates, a scan) does not change
// the Ceiling or Floor it serves.
func TestAliasingKeyAtReentry(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, p := range []partitioner.Partitioner{partitioner.Murmur3, partitioner.ByteOrdered} {
		m, rd := openModel(t, p, keyset.Shapes[4].Gen(r, 300), r, 0)
		entries := m.sorted()
		other := func() partitioner.Key { return entries[r.IntN(len(entries))].key }
		keyAt := func(pos int64) ([]byte, error) {
			o := other()
			if _, _, err := rd.Get(&o); err != nil {
				return nil, err
			}
			if _, _, err := rd.Floor(&o, m.keyAt); err != nil {
				return nil, err
			}
			if res := rd.GetBatch(nil, []partitioner.Key{o, other()}); res[0].Err != nil || res[1].Err != nil {
				return nil, fmt.Errorf("GetBatch: %v %v", res[0].Err, res[1].Err)
			}
			if _, err := rd.CeilingCandidates(&o); err != nil {
				return nil, err
			}
			it := rd.ScanReverse(nil, &o)
			it.Next()
			if err := it.Err(); err != nil {
				return nil, err
			}
			return m.keyAt(pos)
		}
		for range 500 {
			k := p.Decorate(randomBytes(r, 0, 8, []byte("abc")))
			for _, d := range lookupDirs {
				pos, ok, err := d.byKey(rd, &k, keyAt)
				require.NoError(t, err)
				if want := m.nearest(k, d.dir); want == nil {
					require.False(t, ok, "%s %x", d.name, k.Raw)
				} else {
					require.True(t, ok, "%s %x", d.name, k.Raw)
					require.Equal(t, want.pos, pos, "%s %x", d.name, k.Raw)
				}
			}
		}
		require.NoError(t, rd.Close())
		require.NoError(t, rd.Index().Close())
	}
}

// TestAliasingCloseDuringScan: closing the handle between Next calls ends
// the scan with ErrClosed; the iterator does not read memory the handle no
// longer pins.
func TestAliasingCloseDuringScan(t *testing.T) {
	r := rand.New(rand.NewPCG(2, 9))
	file, _ := buildModel(t, partitioner.Murmur3, keyset.Shapes[0].Gen(r, 100), r, 0)
	ix, err := NewIndex(file, OpenOptions{Partitioner: partitioner.Murmur3})
	require.NoError(t, err)
	for _, kind := range scanKinds {
		rd, err := ix.OpenReader()
		require.NoError(t, err)
		it := kind.start(rd, nil, nil)
		require.True(t, it.Next(), kind.name)
		require.NoError(t, rd.Close())
		require.False(t, it.Next(), kind.name)
		require.ErrorIs(t, it.Err(), ErrClosed, kind.name)
	}
	require.NoError(t, ix.Close())
}
