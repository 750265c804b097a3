package partitionindex

import (
	"bytes"
	"flag"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/bti-go/bti/internal/keygen"
	"github.com/bti-go/bti/partitioner"
	"github.com/bti-go/bti/trie"
)

// The detection table (issue 10): single-byte changes to an index, each
// classified as detected (the file does not open, or Check reports a
// problem), undetected and harmless (every lookup answer is still right) or
// undetected and harmful. Print the full table with
//
//	go test ./partitionindex -run TestCheckDetectionTable -v -detect.samples 100000
//
// (-detect.samples 0 tries all 255 alternatives of every byte;
// -detect.baseline adds what a reader alone lets through silently).
var (
	detectSamples  = flag.Int("detect.samples", 3000, "single-byte changes per index in TestCheckDetectionTable (0: every byte, all 255 alternatives)")
	detectBaseline = flag.Bool("detect.baseline", false, "TestCheckDetectionTable: also count changes that answer wrong with no error when Check is not run")
)

// Byte regions of a clean file, to split the table by.
const (
	regionNode       = iota // a node's fixed part but its transition bytes
	regionTransition        // a transition byte (DENSE: the first byte)
	regionHash              // a leaf's hash byte
	regionPosition          // a leaf's position bytes
	regionPadding           // zero padding
	regionFooter            // first/last key and the three numbers
	numRegions
)

var regionNames = [numRegions]string{"node (not transitions)", "transition", "hash byte", "position", "padding", "footer"}

// detectRow counts one region's outcomes.
type detectRow struct {
	changes, detected, harmless, harmful int
	// silent (with -detect.baseline): the file opens and some answer is
	// wrong with no error, Check aside: what a reader alone lets through.
	silent int
}

type detectTable struct {
	name string
	rows [numRegions]detectRow
}

// detectFixture is an index built from keys with increasing positions,
// with everything needed to judge a damaged copy.
type detectFixture struct {
	part    partitioner.Partitioner
	file    []byte
	keys    []partitioner.Key
	pos     []int64
	regions []uint8
}

func newDetectFixture(t testing.TB, cfg keygen.Config) *detectFixture {
	cfg.PositionsIncreasing = true
	entries, err := cfg.Generate()
	require.NoError(t, err)
	f := &detectFixture{part: cfg.Partitioner}
	var buf bytes.Buffer
	b := NewBuilder(&buf, Options{Partitioner: cfg.Partitioner})
	for _, e := range entries {
		require.NoError(t, b.Add(e.Key, e.Pos))
		f.keys = append(f.keys, cfg.Partitioner.Decorate(e.Key))
		f.pos = append(f.pos, e.Pos)
	}
	_, err = b.Complete()
	require.NoError(t, err)
	f.file = buf.Bytes()

	ix, err := NewIndex(f.file, f.part)
	require.NoError(t, err)
	requireClean(t, ix, CheckOptions{Positions: PositionsIncreasing}, "fixture")
	f.regions = make([]uint8, len(f.file))
	for i := range f.regions {
		f.regions[i] = regionPadding
		if int64(i) >= ix.FirstKeyPos() {
			f.regions[i] = regionFooter
		}
	}
	// Mark every node's bytes, walking from the root.
	var s trie.Shape
	stack := []int64{ix.Root()}
	for len(stack) > 0 {
		pos := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		require.NoError(t, ix.Trie().Shape(pos, &s))
		for i := range s.FixedSize {
			f.regions[pos+int64(i)] = regionNode
		}
		switch {
		case s.Type == 3: // SINGLE_NOPAYLOAD_12: [hdr+d][d][t]
			f.regions[pos+2] = regionTransition
		case s.Type >= 1 && s.Type <= 4, s.Type >= 10: // singles, DENSE first
			f.regions[pos+1] = regionTransition
		case s.Type >= 5: // SPARSE: [hdr][n][t0..tn-1]
			for i := range s.Slots {
				f.regions[pos+2+int64(i)] = regionTransition
			}
		}
		if s.Flags >= flagHasHashByte {
			p := pos + int64(s.FixedSize)
			f.regions[p] = regionHash
			for i := range int64(s.Flags) - 7 {
				f.regions[p+1+i] = regionPosition
			}
		}
		for _, c := range s.Children {
			stack = append(stack, c.Pos)
		}
	}
	return f
}

// answers reports whether a damaged copy still answers every lookup as the
// clean file did (each key's Get, a full scan, the count and the footer's
// keys), and whether some lookup returned an error.
func (f *detectFixture) answers(ix *Index) (right, errored bool) {
	right = ix.Count() == int64(len(f.keys)) && bytes.Equal(ix.FirstKey(), f.keys[0].Raw) && bytes.Equal(ix.LastKey(), f.keys[len(f.keys)-1].Raw)
	rd, err := ix.OpenReader()
	if err != nil {
		return false, true
	}
	defer rd.Close()
	for i, k := range f.keys {
		pos, ok, err := rd.Get(k)
		if err != nil {
			return false, true
		}
		if !ok || pos != f.pos[i] {
			right = false
		}
	}
	n := 0
	it := rd.Scan(nil, nil)
	for ; it.Next(); n++ {
		if n >= len(f.pos) || it.Pos() != f.pos[n] {
			right = false
		}
	}
	if it.Err() != nil {
		return false, true
	}
	return right && n == len(f.pos), false
}

// answersRight: every answer right and no lookup error.
func (f *detectFixture) answersRight(ix *Index) bool {
	right, errored := f.answers(ix)
	return right && !errored
}

// classify applies one change to a scratch copy and judges it.
func (f *detectFixture) classify(scratch []byte, off int, v byte) (detected, harmful, silent bool) {
	old := scratch[off]
	scratch[off] = v
	defer func() { scratch[off] = old }()
	ix, err := NewIndexUnchecked(scratch, f.part) // as bti check opens: a footer mismatch is a finding
	if err != nil {
		return true, false, false
	}
	if *detectBaseline {
		right, errored := f.answers(ix)
		silent = !right && !errored
	}
	rep, err := Check(ix, CheckOptions{Positions: PositionsIncreasing, MaxProblems: 1})
	if err != nil || !rep.OK() {
		return true, false, silent
	}
	return false, !f.answersRight(ix), silent
}

// run classifies samples changes (0: all of them) drawn with seed.
func (f *detectFixture) run(name string, samples int, seed uint64) *detectTable {
	tab := &detectTable{name: name}
	scratch := bytes.Clone(f.file)
	count := func(off int, v byte) {
		row := &tab.rows[f.regions[off]]
		row.changes++
		det, harm, silent := f.classify(scratch, off, v)
		if silent {
			row.silent++
		}
		switch {
		case det:
			row.detected++
		case harm:
			row.harmful++
		default:
			row.harmless++
		}
	}
	if samples == 0 {
		for off := range f.file {
			for d := 1; d < 256; d++ {
				count(off, f.file[off]+byte(d))
			}
		}
		return tab
	}
	r := rand.New(rand.NewPCG(seed, 10))
	for range samples {
		off := r.IntN(len(f.file))
		count(off, f.file[off]+byte(1+r.IntN(255)))
	}
	return tab
}

// total sums the rows, with or without the hash bytes.
func (tab *detectTable) total(withHash bool) detectRow {
	var t detectRow
	for i, r := range tab.rows {
		if i == regionHash && !withHash {
			continue
		}
		t.changes += r.changes
		t.detected += r.detected
		t.harmless += r.harmless
		t.harmful += r.harmful
		t.silent += r.silent
	}
	return t
}

func (tab *detectTable) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n| region | changes | detected | undetected harmless | undetected harmful | harmful caught | silently wrong without Check |\n|---|---|---|---|---|---|---|\n", tab.name)
	line := func(name string, r detectRow) {
		silent := "-"
		if *detectBaseline {
			silent = fmt.Sprintf("%d (%.1f%%)", r.silent, 100*float64(r.silent)/float64(max(r.changes, 1)))
		}
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %d | %s | %s |\n", name, r.changes, r.detected, r.harmless, r.harmful, caught(r), silent)
	}
	for i, r := range tab.rows {
		line(regionNames[i], r)
	}
	line("**all but hash bytes**", tab.total(false))
	line("all", tab.total(true))
	return b.String()
}

// caught is the share of changes that alter an answer which Check detects.
// A detected change is counted as answer-altering (conservatively: some
// detected changes are harmless, which would only raise the share).
func caught(r detectRow) string {
	if r.detected+r.harmful == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f%%", 100*float64(r.detected)/float64(r.detected+r.harmful))
}

func TestCheckDetectionTable(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and checks thousands of damaged copies")
	}
	for _, fx := range []struct {
		name string
		cfg  keygen.Config
	}{
		{"murmur3, 10,000 uuid keys", keygen.Config{Partitioner: partitioner.Murmur3, Kind: keygen.UUID, Count: 10_000, Seed: 41}},
		{"byteordered, 5,000 blob keys (8..24 bytes)", keygen.Config{Partitioner: partitioner.ByteOrdered, Kind: keygen.Blob, Count: 5_000, Seed: 42, KeyLenMin: 8, KeyLenMax: 24}},
	} {
		t.Run(fx.cfg.Partitioner.String(), func(t *testing.T) {
			f := newDetectFixture(t, fx.cfg)
			tab := f.run(fmt.Sprintf("%s, %d-byte file, %d changes (seed 7)", fx.name, len(f.file), *detectSamples), *detectSamples, 7)
			t.Logf("\n%v", tab)
			// Regressions: damage to the trie's structure (all but the
			// transition bytes), padding and footer is essentially always
			// caught.
			for _, region := range []int{regionNode, regionPadding, regionFooter} {
				r := tab.rows[region]
				require.LessOrEqual(t, r.harmful*100, r.detected+r.harmful, "%s: harmful changes undetected", regionNames[region])
			}
		})
	}
}
