package audit

import (
	"bytes"
	"flag"
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/bti-go/bti/internal/keygen"
	"github.com/bti-go/bti/internal/partitionpayload"
	"github.com/bti-go/bti/partitioner"
	"github.com/bti-go/bti/partitionindex"
	"github.com/bti-go/bti/trie"
)

// The detection table (issue 10): single-byte changes to an index, each
// classified as detected (the file does not open, or CheckPartitions reports a
// problem), undetected and harmless (every lookup answer is still right) or
// undetected and harmful. Print the full table with
//
//	go test ./audit -run TestCheckDetectionTable -v -detect.samples 100000
//
// (-detect.samples 0 tries all 255 alternatives of every byte;
// -detect.baseline adds what a reader alone lets through silently).
var (
	detectSamples  = flag.Int("detect.samples", 3000, "single-byte changes per index in TestCheckDetectionTable (0: every byte, all 255 alternatives)")
	detectBaseline = flag.Bool("detect.baseline", false, "TestCheckDetectionTable: also count changes that answer wrong with no error when CheckPartitions is not run")
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

// detectRow counts one region's outcomes. A change alters an answer when
// the damaged copy does not open, a lookup returns an error, or some
// lookup, the scan, the count or the footer's keys answer differently.
type detectRow struct {
	changes int
	// detected: the copy does not open or CheckPartitions reports a problem;
	// detectedHarmless of those altered no answer (padding, an unused
	// nibble).
	detected, detectedHarmless int
	harmless, harmful          int // undetected, by whether some answer changed
	// writerIdentical (of harmful): the damaged trie is byte for byte what
	// the writer writes for the entries the copy lists (rebuildTrie), which
	// also pass the encoding, cut, position and footer rules: the copy is
	// a file the writer produces for other keys or positions, so no check
	// without the keys can tell it from a clean one.
	writerIdentical int
	// silent (with -detect.baseline): the file opens and some answer is
	// wrong with no error, CheckPartitions aside: what a reader alone lets through.
	silent int
}

func (r *detectRow) add(o detectRow) {
	r.changes += o.changes
	r.detected += o.detected
	r.detectedHarmless += o.detectedHarmless
	r.harmless += o.harmless
	r.harmful += o.harmful
	r.writerIdentical += o.writerIdentical
	r.silent += o.silent
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
	// keyLo[off], keyHi[off]: the keys whose lookups in the clean file read
	// the byte at off (the subtree of the node holding it; all of them for
	// the footer, none for padding). A lookup is a function of the bytes
	// it reads, so a change at off can alter no other key's Get.
	keyLo, keyHi []int32
}

func newDetectFixture(t testing.TB, cfg keygen.Config) *detectFixture {
	cfg.PositionsIncreasing = true
	entries, err := cfg.Generate()
	require.NoError(t, err)
	f := &detectFixture{part: cfg.Partitioner}
	var buf bytes.Buffer
	b := partitionindex.NewBuilder(&buf, partitionindex.Options{Partitioner: cfg.Partitioner})
	for _, e := range entries {
		require.NoError(t, addRaw(b, cfg.Partitioner, e.Key, e.Pos))
		f.keys = append(f.keys, cfg.Partitioner.Decorate(e.Key))
		f.pos = append(f.pos, e.Pos)
	}
	_, err = b.Complete()
	require.NoError(t, err)
	f.file = buf.Bytes()

	ix, err := partitionindex.NewIndex(f.file, partitionindex.OpenOptions{Partitioner: f.part})
	require.NoError(t, err)
	requireClean(t, ix, Options{Positions: PositionsIncreasing}, "fixture")
	f.regions = make([]uint8, len(f.file))
	for i := range f.regions {
		f.regions[i] = regionPadding
		if int64(i) >= ix.FirstKeyPos() {
			f.regions[i] = regionFooter
		}
	}
	// Mark every node's bytes, and the keys whose lookups read them (a
	// node's subtree holds a run of keys), walking from the root in order.
	f.keyLo = make([]int32, len(f.file))
	f.keyHi = make([]int32, len(f.file))
	var s trie.Shape
	leaves := int32(0)
	var mark func(pos int64)
	mark = func(pos int64) {
		require.NoError(t, ix.Trie().Shape(pos, &s))
		fixed, flags, slots, typ := int64(s.FixedSize), s.Flags, s.Slots, s.Type
		kids := append([]trie.Child(nil), s.Children...)
		lo := leaves
		for _, c := range kids {
			mark(c.Pos)
		}
		if len(kids) == 0 {
			leaves++
		}
		end := pos + fixed
		for i := pos; i < end; i++ {
			f.regions[i] = regionNode
		}
		switch {
		case typ == 3: // SINGLE_NOPAYLOAD_12: [hdr+d][d][t]
			f.regions[pos+2] = regionTransition
		case typ >= 1 && typ <= 4, typ >= 10: // singles, DENSE first
			f.regions[pos+1] = regionTransition
		case typ >= 5: // SPARSE: [hdr][n][t0..tn-1]
			for i := range slots {
				f.regions[pos+2+int64(i)] = regionTransition
			}
		}
		if flags >= partitionpayload.FlagHasHash {
			f.regions[end] = regionHash
			for i := range int64(flags) - 7 {
				f.regions[end+1+i] = regionPosition
			}
			end += int64(flags) - 6
		}
		for i := pos; i < end; i++ {
			f.keyLo[i], f.keyHi[i] = lo, leaves
		}
	}
	mark(ix.Root())
	require.Equal(t, int32(len(f.keys)), leaves)
	for i := ix.FirstKeyPos(); i < int64(len(f.file)); i++ {
		f.keyLo[i], f.keyHi[i] = 0, leaves // the footer: every lookup
	}
	return f
}

// answers reports whether a damaged copy still answers every lookup as the
// clean file did (each key's Get, a full scan, the count and the footer's
// keys), and whether some lookup returned an error, after a change at off
// (only the Gets that read off are made). With stop it returns
// at the first wrong answer (errored is then only what was seen so far).
func (f *detectFixture) answers(ix *partitionindex.Index, off int, stop bool) (right, errored bool) {
	right = ix.Count() == int64(len(f.keys)) && bytes.Equal(ix.FirstKey(), f.keys[0].Raw) && bytes.Equal(ix.LastKey(), f.keys[len(f.keys)-1].Raw)
	if !right && stop {
		return false, false
	}
	rd, err := ix.OpenReader()
	if err != nil {
		return false, true
	}
	defer rd.Close()
	for i := f.keyLo[off]; i < f.keyHi[off]; i++ {
		pos, ok, err := rd.Get(&f.keys[i])
		if err != nil {
			return false, true
		}
		if !ok || pos != f.pos[i] {
			if right = false; stop {
				return false, false
			}
		}
	}
	n := 0
	it := rd.Scan(nil, nil)
	for ; it.Next(); n++ {
		if n >= len(f.pos) || it.Pos() != f.pos[n] {
			if right = false; stop {
				return false, false
			}
		}
	}
	if it.Err() != nil {
		return false, true
	}
	return right && n == len(f.pos), false
}

// answersRight: every answer right and no lookup error.
func (f *detectFixture) answersRight(ix *partitionindex.Index, off int) bool {
	right, errored := f.answers(ix, off, true)
	return right && !errored
}

// classify applies the change of the byte at off to v on a scratch copy
// and returns its outcome as a one-change row.
func (f *detectFixture) classify(scratch []byte, off int, v byte) (o detectRow) {
	old := scratch[off]
	scratch[off] = v
	defer func() { scratch[off] = old }()
	o.changes = 1
	ix, err := partitionindex.NewIndex(scratch, partitionindex.OpenOptions{Partitioner: f.part, SkipPartitionerCheck: true}) // as bti check opens: a footer mismatch is a finding
	if err != nil {
		o.detected = 1 // does not open: every answer is lost
		return o
	}
	if *detectBaseline {
		right, errored := f.answers(ix, off, false)
		if !right && !errored {
			o.silent = 1
		}
	}
	rep, err := CheckPartitions(ix, Options{Positions: PositionsIncreasing, MaxProblems: 1})
	altered := !f.answersRight(ix, off)
	switch {
	case err != nil || !rep.OK():
		o.detected = 1
		if !altered {
			o.detectedHarmless = 1
		}
	case !altered:
		o.harmless = 1
	default:
		o.harmful = 1
		if f.writerIdentical(ix, scratch) {
			o.writerIdentical = 1
		}
	}
	return o
}

// writerIdentical reports whether the trie of ix, opened over data, is
// byte for byte what the writer writes for the entries it lists (their
// paths and payloads in scan order), with the same root and the footer's
// keys right after it.
func (f *detectFixture) writerIdentical(ix *partitionindex.Index, data []byte) bool {
	b, root, ok := rebuildTrie(ix, data)
	return ok && root == ix.Root() && ix.FirstKeyPos() == int64(len(b)) && bytes.Equal(b, data[:len(b)])
}

// rebuildTrie lists the entries of ix (opened over data) in order (depth
// first, an explicit stack) and writes them again with the trie writer; ok
// is false when the trie cannot be walked or written.
func rebuildTrie(ix *partitionindex.Index, data []byte) (file []byte, root int64, ok bool) {
	type frame struct {
		pos  int64
		path []byte
	}
	var s trie.Shape
	var out bytes.Buffer
	w := trie.NewWriter(&out, trie.Options{})
	stack := []frame{{ix.Root(), nil}}
	for len(stack) > 0 {
		f := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if err := ix.Trie().Shape(f.pos, &s); err != nil || len(stack) > len(data) {
			return nil, 0, false
		}
		if len(s.Children) == 0 {
			flags, pl, err := ix.Trie().Payload(f.pos)
			if err != nil || int64(len(pl)) < partitionpayload.Length(flags) {
				return nil, 0, false
			}
			if err := w.Add(f.path, flags, pl[:partitionpayload.Length(flags)]); err != nil {
				return nil, 0, false
			}
			continue
		}
		for i := len(s.Children) - 1; i >= 0; i-- {
			c := s.Children[i]
			stack = append(stack, frame{c.Pos, append(bytes.Clone(f.path), c.Transition)})
		}
	}
	root, err := w.Complete()
	if err != nil {
		return nil, 0, false
	}
	return out.Bytes(), root, true
}

// run classifies samples changes (0: all of them) drawn with seed, on
// GOMAXPROCS goroutines (each change is judged on its own scratch copy, so
// the table does not depend on the schedule).
func (f *detectFixture) run(name string, samples int, seed uint64) *detectTable {
	type change struct {
		off int
		v   byte
	}
	work := make(chan []change, 64)
	go func() {
		defer close(work)
		if samples == 0 {
			for off := range f.file {
				batch := make([]change, 0, 255)
				for d := 1; d < 256; d++ {
					batch = append(batch, change{off, f.file[off] + byte(d)})
				}
				work <- batch
			}
			return
		}
		r := rand.New(rand.NewPCG(seed, 10))
		for done := 0; done < samples; {
			batch := make([]change, 0, 256)
			for ; done < samples && len(batch) < cap(batch); done++ {
				off := r.IntN(len(f.file))
				batch = append(batch, change{off, f.file[off] + byte(1+r.IntN(255))})
			}
			work <- batch
		}
	}()
	tab := &detectTable{name: name}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			scratch := bytes.Clone(f.file)
			var rows [numRegions]detectRow
			for batch := range work {
				for _, c := range batch {
					rows[f.regions[c.off]].add(f.classify(scratch, c.off, c.v))
				}
			}
			mu.Lock()
			defer mu.Unlock()
			for i := range rows {
				tab.rows[i].add(rows[i])
			}
		}()
	}
	wg.Wait()
	return tab
}

// total sums the rows, with or without the hash bytes.
func (tab *detectTable) total(withHash bool) detectRow {
	var t detectRow
	for i, r := range tab.rows {
		if i != regionHash || withHash {
			t.add(r)
		}
	}
	return t
}

func (tab *detectTable) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n| region | changes | detected | of which harmless | undetected harmless | undetected harmful | of which writer-identical | altering changes caught | caught, writer-identical aside | silently wrong without CheckPartitions |\n|---|---|---|---|---|---|---|---|---|---|\n", tab.name)
	line := func(name string, r detectRow) {
		silent := "-"
		if *detectBaseline {
			silent = fmt.Sprintf("%d (%.1f%%)", r.silent, 100*float64(r.silent)/float64(max(r.changes, 1)))
		}
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %d | %d | %d | %s | %s | %s |\n", name, r.changes, r.detected, r.detectedHarmless,
			r.harmless, r.harmful, r.writerIdentical, r.caught(false), r.caught(true), silent)
	}
	for i, r := range tab.rows {
		line(regionNames[i], r)
	}
	line("**all but hash bytes**", tab.total(false))
	line("all", tab.total(true))
	return b.String()
}

// caught is the share of the changes that alter an answer which CheckPartitions
// detects; with aside, the writer-identical changes (which no keyless
// check can tell from a clean file) are left out.
func (r detectRow) caught(aside bool) string {
	det := r.detected - r.detectedHarmless
	missed := r.harmful
	if aside {
		missed -= r.writerIdentical
	}
	if det+missed == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f%%", 100*float64(det)/float64(det+missed))
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
			what := fmt.Sprintf("%d changes (seed 7)", *detectSamples)
			if *detectSamples == 0 {
				what = fmt.Sprintf("every byte, all 255 alternatives: %d changes", 255*len(f.file))
			}
			tab := f.run(fmt.Sprintf("%s, positions increasing, %d-byte file, %s", fx.name, len(f.file), what), *detectSamples, 7)
			t.Logf("\n%v", tab)
			// Regressions: damage to the trie's structure (all but the
			// transition bytes), padding and footer is essentially always
			// caught.
			for _, region := range []int{regionNode, regionPadding, regionFooter} {
				r := tab.rows[region]
				require.LessOrEqual(t, r.harmful*100, r.detected+r.harmful, "%s: harmful changes undetected", regionNames[region])
			}
			// And CheckPartitions is complete for the writer's rules: every change it
			// lets through that alters an answer leaves a file the writer
			// writes for the entries it lists (a transition between its
			// siblings, a position between its neighbours, a hash byte).
			all := tab.total(true)
			require.Equal(t, all.harmful, all.writerIdentical, "undetected harmful changes that a rebuild tells apart from the writer's file")
		})
	}
}
