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
		file, m := buildModel(t, p, keyset.Shapes[4].Gen(r, 300), r, 0)
		ix, err := NewIndex(file, OpenOptions{Partitioner: p})
		require.NoError(t, err)
		rd, err := ix.OpenReader()
		require.NoError(t, err)
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
		require.NoError(t, ix.Close())
	}
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
