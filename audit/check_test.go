package audit

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/bti-go/bti/bytecomparable"
	"github.com/bti-go/bti/internal/goldenindex"
	"github.com/bti-go/bti/internal/keygen"
	"github.com/bti-go/bti/internal/keyset"
	"github.com/bti-go/bti/internal/partitionpayload"
	"github.com/bti-go/bti/partitioner"
	"github.com/bti-go/bti/partitionindex"
	"github.com/bti-go/bti/trie"
)

// requireClean runs CheckPartitions and fails with the problems it lists.
func requireClean(t testing.TB, ix *partitionindex.Index, opts Options, what string) *Report {
	t.Helper()
	rep, err := CheckPartitions(ix, opts)
	require.NoError(t, err, what)
	if !rep.OK() {
		var b bytes.Buffer
		for _, p := range rep.Problems {
			fmt.Fprintf(&b, "  %v\n", p)
		}
		t.Fatalf("%s: %d problems:\n%s", what, rep.ProblemCount, b.String())
	}
	return rep
}

// Every Cassandra-written golden file passes.
func TestCheckGoldens(t *testing.T) {
	for _, c := range goldenindex.Cases(t) {
		t.Run(c.Name, func(t *testing.T) {
			ix, err := partitionindex.NewIndex(c.Want, partitionindex.OpenOptions{Partitioner: c.Partitioner})
			require.NoError(t, err)
			rep := requireClean(t, ix, Options{}, "golden file")
			require.Equal(t, int64(len(c.Entries)), rep.Entries)
			require.Contains(t, rep.Partitioners, c.Partitioner)
			fits, err := FooterPartitioners(ix)
			require.NoError(t, err)
			require.Equal(t, rep.Partitioners, fits, "the exported detector is CheckPartitions' footer rule")

			auto, err := CheckPartitions(ix, Options{DetectPartitioner: true})
			require.NoError(t, err)
			require.True(t, auto.OK())
			if len(c.Entries) >= 2 {
				require.Equal(t, []partitioner.Partitioner{c.Partitioner}, auto.Partitioners, "the footer tells the partitioner")
			}
			require.Equal(t, c.Partitioner, auto.Partitioner)
		})
	}
}

// Every early-open view Cassandra took passes: the golden cases record
// each view's root, count, cutoff and the sha256 of its tail, and the view
// our builder takes after the same keys is required to be that one
// (checkPartial) before it is checked over the file as it was then.
func TestCheckGoldenPartialViews(t *testing.T) {
	for _, c := range goldenindex.Cases(t) {
		if len(c.Partials) == 0 {
			continue
		}
		t.Run(c.Name, func(t *testing.T) {
			var buf bytes.Buffer
			b := partitionindex.NewBuilder(&buf, partitionindex.Options{Partitioner: c.Partitioner})
			next, views := 0, 0
			for i, e := range c.Entries {
				require.NoError(t, addRaw(b, c.Partitioner, e.Key, e.Pos))
				if next < len(c.Partials) && c.Partials[next].AfterKeys == i+1 {
					if v := checkPartial(t, b, c.Partials[next]); v != nil {
						ix, err := v.NewIndex(buf.Bytes())
						require.NoError(t, err)
						requireClean(t, ix, Options{}, fmt.Sprintf("view after %d keys", i+1))
						views++
					}
					next++
				}
			}
			_, err := b.Complete()
			require.NoError(t, err)
			require.Equal(t, c.Want, buf.Bytes())
			require.Positive(t, views)
		})
	}
}

// Every file the model tests build (TestModelLookups' key shapes, sizes
// and page sizes, plus the empty index) passes, including nodes larger than
// the tiny test pages.
func TestCheckModelFiles(t *testing.T) {
	for _, c := range keyset.ModelCases(append([]int{0}, keyset.ModelSizes(testing.Short())...)) {
		t.Run(c.Name(), func(t *testing.T) {
			r := c.Rand()
			file, entries := buildModel(t, c.Partitioner, c.Shape.Gen(r, c.Keys), r, c.PageSize)
			ix, err := partitionindex.NewIndex(file, partitionindex.OpenOptions{Partitioner: c.Partitioner})
			require.NoError(t, err)
			rep := requireClean(t, ix, Options{PageSize: c.PageSize}, c.Name())
			require.Equal(t, int64(entries), rep.Entries)
		})
	}
}

// detected reports whether damaged bytes are caught: they do not open, or
// CheckPartitions finds a problem.
func detected(t testing.TB, data []byte, p partitioner.Partitioner, opts Options) bool {
	ix, err := partitionindex.NewIndex(data, partitionindex.OpenOptions{Partitioner: p})
	if err != nil {
		require.ErrorIs(t, err, partitionindex.ErrCorrupt)
		return true
	}
	rep, err := CheckPartitions(ix, opts)
	require.NoError(t, err)
	return !rep.OK()
}

// checkSamples are small files to damage: a golden file of each
// partitioner and files of our own with tiny pages and long keys.
func checkSamples(t *testing.T) map[string]struct {
	file []byte
	part partitioner.Partitioner
	page int
} {
	out := map[string]struct {
		file []byte
		part partitioner.Partitioner
		page int
	}{}
	for _, c := range goldenindex.Cases(t) {
		if len(c.Want) < 50_000 {
			out["golden/"+c.Name] = struct {
				file []byte
				part partitioner.Partitioner
				page int
			}{c.Want, c.Partitioner, 0}
		}
	}
	for i, ks := range keyset.Shapes {
		r := rand.New(rand.NewPCG(uint64(i), 9))
		file, _ := buildModel(t, partitioner.ByteOrdered, ks.Gen(r, 60), r, 64)
		out["model/"+ks.Name] = struct {
			file []byte
			part partitioner.Partitioner
			page int
		}{file, partitioner.ByteOrdered, 64}
	}
	return out
}

// A file cut at any length, or with anything appended, is detected.
func TestCheckTruncatedAndAppended(t *testing.T) {
	for name, s := range checkSamples(t) {
		t.Run(name, func(t *testing.T) {
			opts := Options{PageSize: s.page}
			for n := 0; n < len(s.file); n++ {
				if !detected(t, s.file[:n], s.part, opts) {
					t.Fatalf("truncation to %d of %d bytes not detected", n, len(s.file))
				}
			}
			r := rand.New(rand.NewPCG(uint64(len(s.file)), 3))
			for _, n := range []int{1, 2, 7, 8, 23, 24, 25, 100, 4096} {
				for _, fill := range []string{"zeros", "random", "copy"} {
					extra := make([]byte, n)
					switch fill {
					case "random":
						for i := range extra {
							extra[i] = byte(r.Uint32())
						}
					case "copy": // the file's own tail again: a valid-looking footer
						start := len(s.file) - min(n, len(s.file))
						for i := range extra {
							extra[i] = s.file[start+i%(len(s.file)-start)]
						}
					}
					grown := append(bytes.Clone(s.file), extra...)
					if !detected(t, grown, s.part, opts) {
						t.Fatalf("%d appended bytes (%s) not detected", n, fill)
					}
				}
			}
		})
	}
}

// Each rule catches something: over every single-byte change of a small
// index (and a few changes no single byte makes), every rule reports at
// least once, and no change of a node byte other than a transition or a
// position goes unnoticed when it alters an answer.
func TestCheckRulesFire(t *testing.T) {
	if testing.Short() {
		t.Skip("checks every single-byte change of a file")
	}
	fired := map[Rule]int{}
	record := func(data []byte, p partitioner.Partitioner, opts Options) {
		ix, err := partitionindex.NewIndex(data, partitionindex.OpenOptions{Partitioner: p, SkipPartitionerCheck: true})
		if err != nil {
			return
		}
		rep, err := CheckPartitions(ix, opts)
		require.NoError(t, err)
		for _, pr := range rep.Problems {
			fired[pr.Rule]++
		}
	}
	for _, cfg := range []keygen.Config{
		{Partitioner: partitioner.ByteOrdered, Kind: keygen.Blob, Count: 120, Seed: 3, KeyLenMin: 1, KeyLenMax: 6, PositionsIncreasing: true},
		{Partitioner: partitioner.Murmur3, Kind: keygen.Int32, Count: 150, Seed: 4, PositionsIncreasing: true},
	} {
		for _, page := range []int{0, 64} {
			file := buildIndexPaged(t, cfg, page)
			opts := Options{PageSize: page, Positions: PositionsIncreasing}
			scratch := bytes.Clone(file)
			for off := range file {
				for d := 1; d < 256; d += 16 {
					scratch[off] = file[off] + byte(d)
					record(scratch, cfg.Partitioner, opts)
				}
				scratch[off] = file[off]
			}
		}
	}
	t.Logf("problems per rule: %v", fired)
	for _, rule := range []Rule{RuleFooter, RuleRoot, RuleCount, RuleFirstKey, RuleLastKey, RuleNode, RuleType,
		RuleTransitions, RuleDense, RulePacking, RulePayload, RulePage, RulePadding, RuleReach, RulePrefix, RulePositions, RuleEncoding} {
		require.Positive(t, fired[rule], "rule %s never fired", rule)
	}
}

// buildIndexPaged builds cfg's keys with the given page size (0: the
// default).
func buildIndexPaged(tb testing.TB, cfg keygen.Config, pageSize int) []byte {
	tb.Helper()
	entries, err := cfg.Generate()
	require.NoError(tb, err)
	var buf bytes.Buffer
	b := partitionindex.NewBuilder(&buf, partitionindex.Options{Partitioner: cfg.Partitioner, PageSize: pageSize})
	for _, e := range entries {
		require.NoError(tb, addRaw(b, cfg.Partitioner, e.Key, e.Pos))
	}
	_, err = b.Complete()
	require.NoError(tb, err)
	return buf.Bytes()
}

// The encoding grammar accepts every byte a stored prefix can have: all of
// a Murmur3 or Random key's encoding, a ByteOrdered key's up to the 40 that
// ends its token (distinct keys differ before it), and rejects bytes no
// stored prefix has.
func TestCheckEncodingGrammar(t *testing.T) {
	walk := func(p partitioner.Partitioner, enc []byte) (int, encState) {
		s := encStart
		for i, b := range enc {
			if s = encStep(p, s, b); s == encBad {
				return i, s
			}
		}
		return len(enc), s
	}
	r := rand.New(rand.NewPCG(5, 5))
	for _, p := range []partitioner.Partitioner{partitioner.Murmur3, partitioner.ByteOrdered, partitioner.Random} {
		for range 2000 {
			raw := keyset.RandomBytes(r, 0, 12, []byte{0x00, 0x01, 0x38, 0x40, 0xFE, 0xFF})
			enc := p.Decorate(raw).AppendComparable(nil)
			longest := enc
			if p == partitioner.ByteOrdered {
				// 40 <escaped token> 40: the token is the escaped key.
				longest = enc[:1+len(bytecomparable.AppendEscaped(nil, raw))+1]
			}
			i, s := walk(p, longest)
			require.NotEqual(t, encBad, s, "%v key %x: encoding %x rejected at byte %d", p, raw, enc, i)
			if p != partitioner.Random {
				require.Equal(t, encEnd, s, "%v key %x: nothing may follow %x", p, raw, longest)
			}
			if p == partitioner.ByteOrdered {
				_, s := walk(p, enc[:len(longest)+1])
				require.Equal(t, encBad, s, "%v key %x: a stored prefix never reaches the second copy", p, raw)
			}
		}
	}
	for _, bad := range []struct {
		p   partitioner.Partitioner
		enc []byte
	}{
		{partitioner.Murmur3, []byte{0x41}},
		{partitioner.Random, []byte{0x00}},
		{partitioner.Murmur3, []byte{0x40, 1, 2, 3, 4, 5, 6, 7, 8, 0x41}},
		{partitioner.ByteOrdered, []byte{0x40, 0x00, 0x41}},
		{partitioner.ByteOrdered, []byte{0x40, 0x00, 0xFF, 0x00}},
		{partitioner.ByteOrdered, []byte{0x40, 0x61, 0x00, 0x38}},
		{partitioner.ByteOrdered, []byte{0x40, 0x61, 0x00, 0x40, 0x61}},
		{partitioner.Murmur3, []byte{0x40, 1, 2, 3, 4, 5, 6, 7, 8, 0x40, 0x61, 0x00, 0x40}},
		{partitioner.Murmur3, []byte{0x40, 1, 2, 3, 4, 5, 6, 7, 8, 0x40, 0x61, 0x00, 0x38, 0x00}},
	} {
		_, s := walk(bad.p, bad.enc)
		require.Equal(t, encBad, s, "%v %x", bad.p, bad.enc)
	}
}

// The report's numbers are the file's: node counts by type as NodeCounts
// walks them, and the depth, pages-per-lookup and padding figures as an
// independent walk (recursive, over trie.Shape) finds them; the problems
// kept stop at MaxProblems while the total counts on.
func TestCheckReport(t *testing.T) {
	type sample struct {
		name string
		file []byte
		part partitioner.Partitioner
		page int
	}
	var samples []sample
	for _, c := range goldenindex.Cases(t) {
		samples = append(samples, sample{"golden/" + c.Name, c.Want, c.Partitioner, 0})
	}
	r := rand.New(rand.NewPCG(8, 8))
	file, _ := buildModel(t, partitioner.ByteOrdered, keyset.Shapes[0].Gen(r, 3000), r, 64)
	samples = append(samples, sample{"model/" + keyset.Shapes[0].Name + "/page=64", file, partitioner.ByteOrdered, 64})
	for _, s := range samples {
		t.Run(s.name, func(t *testing.T) {
			ix, err := partitionindex.NewIndex(s.file, partitionindex.OpenOptions{Partitioner: s.part})
			require.NoError(t, err)
			rep := requireClean(t, ix, Options{PageSize: s.page}, s.name)

			counts, err := CountNodes(ix)
			require.NoError(t, err)
			byType := map[string]int64{}
			for typ, n := range counts {
				if n > 0 {
					byType[trie.TypeName(uint8(typ))] = n
				}
			}
			require.Equal(t, byType, rep.NodesByType)
			require.Equal(t, counts.Total(), rep.Nodes)

			page := int64(s.page)
			if page == 0 {
				page = 4096
			}
			var depth, pages []int64
			var nodeBytes int64
			bump := func(h []int64, i int) []int64 {
				for len(h) <= i {
					h = append(h, 0)
				}
				h[i]++
				return h
			}
			var walk func(pos int64, d, p int)
			walk = func(pos int64, d, p int) {
				var sh trie.Shape
				require.NoError(t, ix.Trie().Shape(pos, &sh))
				nodeBytes += int64(sh.FixedSize) + partitionpayload.Length(sh.Flags)
				if len(sh.Children) == 0 {
					if sh.Flags != 0 {
						depth, pages = bump(depth, d), bump(pages, p)
					}
					return
				}
				for _, c := range sh.Children {
					q := p
					if c.Pos/page != pos/page {
						q++
					}
					walk(c.Pos, d+1, q)
				}
			}
			walk(ix.Root(), 0, 1)
			if depth == nil {
				depth, pages = []int64{}, []int64{}
			}
			require.Equal(t, depth, rep.Depth, "entries by stored prefix length")
			require.Equal(t, pages, rep.Pages, "entries by pages an exact lookup touches")
			require.Equal(t, ix.FirstKeyPos()-nodeBytes, rep.PaddingBytes)
			require.Equal(t, ix.Count(), rep.Entries)
		})
	}

	// Problems: the first MaxProblems kept, all counted.
	c := goldenindex.Cases(t)
	var data []byte
	for _, gc := range c {
		if gc.Name == "murmur3-1000-int64" {
			data = bytes.Clone(gc.Want)
		}
	}
	if data == nil {
		t.Skip("murmur3-1000-int64 not among the golden cases")
	}
	for i := 0; i < 4096; i += 97 {
		data[i] ^= 0x5a
	}
	ix, err := partitionindex.NewIndex(data, partitionindex.OpenOptions{Partitioner: partitioner.Murmur3, SkipPartitionerCheck: true})
	require.NoError(t, err)
	rep, err := CheckPartitions(ix, Options{MaxProblems: 3})
	require.NoError(t, err)
	require.Len(t, rep.Problems, 3)
	require.Greater(t, rep.ProblemCount, int64(3))
	all, err := CheckPartitions(ix, Options{MaxProblems: 1000})
	require.NoError(t, err)
	require.Equal(t, rep.ProblemCount, all.ProblemCount)
	require.Equal(t, all.Problems[:3], rep.Problems)
}

// Options.Progress sees the scan go through the file in bytes and
// then the walk through the scan's nodes, never past their totals.
func TestCheckProgress(t *testing.T) {
	if testing.Short() {
		t.Skip("builds 1,200,000 keys (over 2^20 nodes); skipped under -short")
	}
	file := buildIndex(t, keygen.Config{Partitioner: partitioner.Murmur3, Kind: keygen.UUID, Count: 1_200_000, Seed: 4})
	ix, err := partitionindex.NewIndex(file, partitionindex.OpenOptions{})
	require.NoError(t, err)
	var phases []string
	rep, err := CheckPartitions(ix, Options{Progress: func(phase string, done, total int64) {
		if len(phases) == 0 || phases[len(phases)-1] != phase {
			phases = append(phases, phase)
		}
		require.Positive(t, done)
		require.LessOrEqual(t, done, total, phase)
		switch phase {
		case "scan": // the bytes before the footer
			require.LessOrEqual(t, total, int64(len(file)))
			require.Greater(t, total, int64(len(file)-100))
		case "walk":
		default:
			t.Fatalf("phase %q", phase)
		}
	}})
	require.NoError(t, err)
	require.True(t, rep.OK())
	require.Equal(t, []string{"scan", "walk"}, phases)
}
