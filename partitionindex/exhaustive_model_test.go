package partitionindex

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/bti-go/bti/partitioner"
)

// The exhaustive test's model (exhaustive_test.go): what every answer for
// one key set should be, computed from the keys alone.

// exhaustivePosition is universe key u's position: unique, of every payload
// size from 1 to 7 bytes, both signs (never notFound).
func exhaustivePosition(u int) int64 {
	v := int64(u+1) << (8 * (u % 7))
	if u%2 == 1 {
		v = ^v
	}
	return v
}

// exProbe is a probe key with what the model needs of it.
type exProbe struct {
	key partitioner.Key
	enc []byte
}

func newExProbe(p partitioner.Partitioner, raw []byte) exProbe {
	k := p.Decorate(raw)
	return exProbe{key: k, enc: k.AppendComparable(nil)}
}

// exEntry is one key of a set, in the model.
type exEntry struct {
	exProbe
	pos    int64
	stored []byte // the stored prefix: enc cut to docs/format.md §2.5's L
}

// exSet is the model of one key set under one partitioner.
type exSet struct {
	p       partitioner.Partitioner
	entries []exEntry // in key order
	raws    [][]byte  // in key order, for messages
}

func newExSet(p partitioner.Partitioner, uni [][]byte, set []uint8) *exSet {
	s := &exSet{p: p}
	for _, u := range set {
		s.entries = append(s.entries, exEntry{exProbe: newExProbe(p, uni[u]), pos: exhaustivePosition(int(u))})
	}
	slices.SortFunc(s.entries, func(a, b exEntry) int { return partitioner.Compare(a.key, b.key) })
	diff := func(a, b []byte) int { // docs/format.md §2.5: 1-based
		n := 0
		for n < len(a) && n < len(b) && a[n] == b[n] {
			n++
		}
		return n + 1
	}
	for i := range s.entries {
		e := &s.entries[i]
		l := 0
		if i > 0 {
			l = max(l, diff(s.entries[i-1].enc, e.enc))
		}
		if i+1 < len(s.entries) {
			l = max(l, diff(e.enc, s.entries[i+1].enc))
		}
		e.stored = e.enc[:l]
		s.raws = append(s.raws, e.key.Raw)
	}
	return s
}

// name is the set as BTI_EXHAUSTIVE_KEYS takes it.
func (s *exSet) name() string {
	var b strings.Builder
	b.WriteByte('{')
	for i, r := range s.raws {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%x", r)
	}
	b.WriteByte('}')
	return b.String()
}

func (s *exSet) keyAt(pos int64) ([]byte, error) {
	for _, e := range s.entries {
		if e.pos == pos {
			return e.key.Raw, nil
		}
	}
	return nil, fmt.Errorf("position %d is no entry of the set", pos)
}

// rank returns the model index of the entry at pos, -1 for none.
func (s *exSet) rank(pos int64) int {
	for i, e := range s.entries {
		if e.pos == pos {
			return i
		}
	}
	return -1
}

// onPath returns the entry whose stored prefix is a prefix of the probe's
// encoding, -1 for none.
func (s *exSet) onPath(pr *exProbe) int {
	for i, e := range s.entries {
		if bytes.HasPrefix(pr.enc, e.stored) {
			return i
		}
	}
	return -1
}

// nearest returns the smallest entry >= the probe (dir +1) or the largest
// <= it (dir -1), > or < if strict, skipping entry skip; -1 for none.
func (s *exSet) nearest(k *partitioner.Key, dir int, strict bool, skip int) int {
	best := -1
	for i := range s.entries {
		if i == skip {
			continue
		}
		c := dir * partitioner.Compare(s.entries[i].key, *k)
		if c < 0 || (strict && c == 0) {
			continue
		}
		if best < 0 || dir*partitioner.Compare(s.entries[i].key, s.entries[best].key) < 0 {
			best = i
		}
	}
	return best
}

// exPlan is what the model answers for every probe of one set under one
// partitioner, computed once and checked at every page size. Entry
// indexes are ranks in key order, -1 for none.
type exPlan struct {
	set    *exSet
	probes []exProbe
	on     []int // the entry whose stored prefix is a prefix of the probe
	get    []int // on, if its hash byte is the probe's
	ge, le []int // the smallest entry >= the probe, the largest <= it
	// beyond[d] is the nearest entry strictly beyond the probe other than
	// on: d 0 for a ceiling, 1 for a floor.
	beyond [2][]int
	ord    []int // the probe's rank among the probes (equal keys equal)
	// pairs are the scans' bounds, as probes (-1 for nil).
	pairs [][2]int
}

// newExPlan adds to the universe's probes the empty key and, for each key
// of the set, its extensions by 00, 7F and FF, its twin (an extension
// with the same hash byte, so Get has a false positive to return where
// the stored prefix allows) and its last byte moved by one either way.
// Scans take every pair of probes and nil as bounds when allBounds, else
// every pair of nil, the empty key, the set's keys and the probes derived
// from them, and every other probe with nil.
func newExPlan(s *exSet, uniProbes []exProbe, twins map[string][]byte, allBounds bool) *exPlan {
	pl := &exPlan{set: s, probes: slices.Clone(uniProbes)}
	var near []int
	addNear := func(raw []byte) {
		near = append(near, len(pl.probes))
		pl.probes = append(pl.probes, newExProbe(s.p, raw))
	}
	addNear([]byte{})
	for _, e := range s.entries {
		raw := e.key.Raw
		near = append(near, slices.IndexFunc(uniProbes, func(pr exProbe) bool { return bytes.Equal(pr.key.Raw, raw) }))
		for _, b := range []byte{0x00, 0x7F, 0xFF} {
			addNear(append(slices.Clone(raw), b))
		}
		addNear(twins[string(raw)])
		last := raw[len(raw)-1]
		if last > 0 {
			addNear(append(slices.Clone(raw[:len(raw)-1]), last-1))
		}
		if last < 0xFF {
			addNear(append(slices.Clone(raw[:len(raw)-1]), last+1))
		}
	}
	n := len(pl.probes)
	pl.on, pl.get, pl.ge, pl.le = make([]int, n), make([]int, n), make([]int, n), make([]int, n)
	pl.beyond = [2][]int{make([]int, n), make([]int, n)}
	for i := range pl.probes {
		pr := &pl.probes[i]
		on := s.onPath(pr)
		pl.on[i], pl.get[i] = on, -1
		if on >= 0 && s.entries[on].key.HashByte() == pr.key.HashByte() {
			pl.get[i] = on
		}
		pl.ge[i] = s.nearest(&pr.key, +1, false, -1)
		pl.le[i] = s.nearest(&pr.key, -1, false, -1)
		pl.beyond[0][i] = s.nearest(&pr.key, +1, true, on)
		pl.beyond[1][i] = s.nearest(&pr.key, -1, true, on)
	}
	byKey := make([]int, n)
	for i := range byKey {
		byKey[i] = i
	}
	slices.SortFunc(byKey, func(a, b int) int { return partitioner.Compare(pl.probes[a].key, pl.probes[b].key) })
	pl.ord = make([]int, n)
	for r, i := range byKey {
		pl.ord[i] = r
		if r > 0 && partitioner.Compare(pl.probes[byKey[r-1]].key, pl.probes[i].key) == 0 {
			pl.ord[i] = pl.ord[byKey[r-1]]
		}
	}
	bounds := append([]int{-1}, near...)
	if allBounds {
		bounds = bounds[:1]
		for i := range n {
			bounds = append(bounds, i)
		}
	}
	for _, lo := range bounds {
		for _, hi := range bounds {
			pl.pairs = append(pl.pairs, [2]int{lo, hi})
		}
	}
	if !allBounds {
		for i := range len(uniProbes) {
			if !slices.Contains(near, i) {
				pl.pairs = append(pl.pairs, [2]int{i, -1}, [2]int{-1, i})
			}
		}
	}
	return pl
}

// checkScan checks one scan's result (ascending) between probes lo and hi
// (-1 for nil) against the Iterator contract: with start after end
// nothing; else entries a..b, where a is the first entry >= start or the
// one before it, if that one's stored prefix is a prefix of start (it is
// then not start itself), and b likewise at the end.
func (pl *exPlan) checkScan(lo, hi int, got []int64, st *exStats) error {
	s := pl.set
	n := len(s.entries)
	if lo >= 0 && hi >= 0 && pl.ord[lo] > pl.ord[hi] {
		if len(got) > 0 {
			return fmt.Errorf("start after end: got %d entries, want none", len(got))
		}
		return nil
	}
	i, j := 0, n-1
	lowExtra, highExtra := false, false
	if lo >= 0 {
		i = pl.ge[lo]
		if i < 0 {
			i = n
		}
		lowExtra = i > 0 && pl.on[lo] == i-1
	}
	if hi >= 0 {
		j = pl.le[hi]
		highExtra = j+1 < n && pl.on[hi] == j+1
	}
	a, b := i, j
	if len(got) > 0 && lowExtra && got[0] == s.entries[i-1].pos {
		a = i - 1
	}
	if len(got) > 0 && highExtra && got[len(got)-1] == s.entries[j+1].pos {
		b = j + 1
	}
	ok := len(got) == max(0, b-a+1)
	for r := a; ok && r <= b; r++ {
		ok = got[r-a] == s.entries[r].pos
	}
	if !ok {
		ranks := make([]int, len(got))
		for x, p := range got {
			ranks[x] = s.rank(p)
		}
		return fmt.Errorf("got entries %v, want entries %d..%d (in range %d..%d, extra below allowed %v, above %v)", ranks, a, b, i, j, lowExtra, highExtra)
	}
	if a < i {
		st.scanExtras++
	}
	if b > j {
		st.scanExtras++
	}
	return nil
}

// exTwins returns for every universe key an extension by one or two bytes
// with the same hash byte.
func exTwins(uni [][]byte) map[string][]byte {
	twins := map[string][]byte{}
	for _, raw := range uni {
		h := partitioner.Murmur3.Decorate(raw).HashByte()
	search:
		for x := range 1 << 16 {
			t := append(slices.Clone(raw), byte(x>>8), byte(x))
			if x < 256 {
				t = append(slices.Clone(raw), byte(x))
			}
			if partitioner.Murmur3.Decorate(t).HashByte() == h {
				twins[string(raw)] = t
				break search
			}
		}
	}
	return twins
}
