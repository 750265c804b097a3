package audit_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/bti-go/bti/audit"
	"github.com/bti-go/bti/bytecomparable"
	"github.com/bti-go/bti/internal/golden"
	"github.com/bti-go/bti/internal/rowgen"
	"github.com/bti-go/bti/internal/rowstsv"
	"github.com/bti-go/bti/partitioner"
	"github.com/bti-go/bti/partitionindex"
	"github.com/bti-go/bti/rowindex"
)

// goldenPositions returns a golden case's Rows.db and its entry positions
// (the non-negative RESULT values), with the number of blocks indexed.
func goldenPositions(t *testing.T, c golden.RowsCase) ([]byte, []int64, int64) {
	t.Helper()
	f, err := rowstsv.ReadFile(c.InputPath)
	if err != nil {
		t.Fatal(err)
	}
	lines, err := rowstsv.ReadResult(c.Result(t))
	if err != nil {
		t.Fatal(err)
	}
	var pos []int64
	var blocks int64
	for i, l := range lines {
		if v := l.Value; v >= 0 {
			pos = append(pos, v)
			blocks += int64(len(f.Partitions[i].Blocks))
		}
	}
	return c.RowsDB(t), pos, blocks
}

// buildWide writes lead one-block partitions (which move the trie to an
// unaligned start), then one wide partition of n blocks (internal/rowgen),
// with the given page size, and returns the file and the wide partition's
// result.
func buildWide(t *testing.T, n, pageSize, lead int) ([]byte, rowindex.Result) {
	t.Helper()
	cols, blocks := rowgen.Wide(n)
	var out bytes.Buffer
	w := rowindex.NewWriter(&out, rowindex.Options{Columns: cols, PageSize: pageSize})
	for range lead {
		b0 := blocks[0]
		if err := w.Add(&rowindex.Block{First: b0.First, Last: b0.First}); err != nil {
			t.Fatal(err)
		}
		if _, err := w.FinishPartition([]byte("lead"), 0, 1, rowindex.Live); err != nil {
			t.Fatal(err)
		}
	}
	for _, b := range blocks {
		if err := w.Add(&b); err != nil {
			t.Fatal(err)
		}
	}
	res, err := w.FinishPartition([]byte("key"), 77, int64(n)*rowgen.BlockSize, rowindex.Deletion(5, 6))
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes(), res
}

func requireProblem(t *testing.T, rep *audit.Report, rule audit.Rule) {
	t.Helper()
	for _, p := range rep.Problems {
		if p.Rule == rule {
			return
		}
	}
	t.Fatalf("no %s problem in %d: %v", rule, rep.ProblemCount, rep.Problems)
}

// TestCheckRowsGolden: every Rows.db Cassandra wrote passes CheckRows (each
// trie is what the writer lays out for its entries, at its position), and
// so does a wide partition's our writer lays out (internal/rowgen), on tiny
// pages too.
func TestCheckRowsGolden(t *testing.T) {
	for _, c := range golden.RowsCases(t) {
		t.Run(c.Name, func(t *testing.T) {
			data, pos, blocks := goldenPositions(t, c)
			visited := 0
			rep := audit.CheckRows(data, pos, audit.Options{Visit: func(e rowindex.Entry, bl []rowindex.IndexInfo) (audit.Rule, string) {
				visited++
				if len(bl) != e.Blocks+1 {
					return "test", "blocks"
				}
				return "", ""
			}})
			if !rep.OK() || rep.Entries != int64(len(pos)) || rep.Blocks != blocks || visited != len(pos) || rep.Size != int64(len(data)) {
				t.Fatalf("report %+v (visited %d), want %d entries and %d blocks, no problem", rep, visited, len(pos), blocks)
			}
		})
	}
	for _, pageSize := range []int{0, 64} {
		db, res := buildWide(t, 300, pageSize, 3)
		if rep := audit.CheckRows(db, []int64{res.Value}, audit.Options{PageSize: pageSize}); !rep.OK() {
			t.Fatalf("model, page size %d: %v", pageSize, rep.Problems)
		}
		// Checked under the wrong page size, the layout differs.
		if pageSize != 0 {
			requireProblem(t, audit.CheckRows(db, []int64{res.Value}, audit.Options{}), audit.RuleLayout)
		}
	}
}

// TestCheckRowsDamage damages the golden multi-partition file (five indexed
// partitions) in ways a reader may not notice and checks each is reported
// under its rule, with the other partitions still checked.
func TestCheckRowsDamage(t *testing.T) {
	c := golden.RowsCaseNamed(t, "multi-partition")
	data, pos, _ := goldenPositions(t, c)
	const entry7002, root7002 = 217, 201 // see TestWalkCatchesCrossPartitionPointer
	check := func(data []byte, pos []int64) *audit.Report {
		return audit.CheckRows(data, pos, audit.Options{})
	}

	rep := check(append(bytes.Clone(data), 0), pos)
	requireProblem(t, rep, audit.RuleTrailing)

	rep = check(data, append([]int64{pos[1]}, pos...))
	requireProblem(t, rep, audit.RuleOrder)

	// 7002's entry claims 16 blocks: its trie holds 17.
	bad := bytes.Clone(data)
	if bad[entry7002+2+2+3+1] != 17 {
		t.Fatalf("unexpected entry % x", bad[entry7002:entry7002+12])
	}
	bad[entry7002+2+2+3+1] = 16
	rep = check(bad, pos)
	requireProblem(t, rep, audit.RuleEntry)
	if rep.ProblemCount != 1 || rep.Problems[0].Entry != entry7002 {
		t.Fatalf("want one problem, in 7002's entry: %v", rep.Problems)
	}

	// 7002's root pointer moved to another node of its own trie: readers
	// follow it, the layout is not the writer's.
	bad = bytes.Clone(data)
	bad[root7002+2]++
	rep = check(bad, pos)
	if rep.OK() {
		t.Fatal("a moved root pointer passed")
	}

	// Every single-byte change of a trie's structure is reported or makes
	// a different but valid file (a payload byte: another block offset).
	r := rand.New(rand.NewPCG(5, 6))
	caught := 0
	for range 400 {
		bad := bytes.Clone(data)
		i := r.IntN(len(bad))
		bad[i] ^= byte(1 + r.IntN(255))
		if !check(bad, pos).OK() {
			caught++
		}
	}
	t.Logf("%d of 400 random byte changes reported", caught)
	if caught < 200 {
		t.Errorf("only %d of 400 random byte changes reported", caught)
	}
}

// TestCheckRowsAfterFailedEntry: an unreadable entry does not stop the check;
// the next partition, whose trie start is then unknown, is still walked.
func TestCheckRowsAfterFailedEntry(t *testing.T) {
	cols := []bytecomparable.Column{{Type: bytecomparable.Int}}
	var out bytes.Buffer
	w := rowindex.NewWriter(&out, rowindex.Options{Columns: cols})
	var pos []int64
	for p := range 3 {
		for i := range 4 {
			v := [][]byte{binary.BigEndian.AppendUint32(nil, uint32(i))}
			if err := w.Add(&rowindex.Block{First: v, Last: v, Offset: int64(i * 10)}); err != nil {
				t.Fatal(err)
			}
		}
		res, err := w.FinishPartition([]byte{byte(p)}, int64(p), 100, rowindex.Live)
		if err != nil {
			t.Fatal(err)
		}
		pos = append(pos, res.Value)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	data := out.Bytes()
	if rep := audit.CheckRows(data, pos, audit.Options{}); !rep.OK() || rep.Entries != 3 || rep.Blocks != 12 {
		t.Fatalf("clean file: %+v", rep)
	}
	bad := bytes.Clone(data)
	bad[pos[1]] = 0xFF // key length 65,280: runs past the end
	rep := audit.CheckRows(bad, pos, audit.Options{})
	if rep.ProblemCount != 1 || rep.Problems[0].Rule != audit.RuleEntry || rep.Problems[0].Entry != pos[1] || rep.Blocks != 8 {
		t.Fatalf("one bad entry: %+v", rep)
	}
}

// TestRowBlocks: on every golden Rows.db, RowBlocks lists the blocks
// rowindex.Walk lists, in order, under strictly increasing separators, the
// first the empty key; each separator leads a Floor lookup to its own block.
func TestRowBlocks(t *testing.T) {
	for _, c := range golden.RowsCases(t) {
		t.Run(c.Name, func(t *testing.T) {
			data, pos, _ := goldenPositions(t, c)
			var seps []audit.RowBlock
			err := rowindex.Walk(data, pos, func(e rowindex.Entry, blocks []rowindex.IndexInfo) error {
				p, err := rowindex.OpenPartition(data, e.Position, nil)
				if err != nil {
					return err
				}
				if seps, err = audit.RowBlocks(seps[:0], p); err != nil {
					return err
				}
				if len(seps) != len(blocks) {
					return fmt.Errorf("entry %d: %d separators, %d blocks", e.Position, len(seps), len(blocks))
				}
				r := p.NewReader()
				for i, s := range seps {
					if s.Info != blocks[i] {
						return fmt.Errorf("entry %d block %d: %+v, Walk says %+v", e.Position, i, s.Info, blocks[i])
					}
					if (i == 0) != (len(s.Separator) == 0) || i > 0 && bytes.Compare(seps[i-1].Separator, s.Separator) >= 0 {
						return fmt.Errorf("entry %d block %d: separator %x after %x", e.Position, i, s.Separator, seps[max(i-1, 0)].Separator)
					}
					got, ok, err := r.SeparatorFloor(s.Separator)
					if err != nil || !ok || got != s.Info {
						return fmt.Errorf("entry %d block %d: SeparatorFloor(%x) = %+v, %v, %v", e.Position, i, s.Separator, got, ok, err)
					}
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestCheckTable: the golden Rows.db files pass against a Partitions.db
// that maps every key to its value in Cassandra's RESULT (what tableindex
// writes beside them: TestGoldenBothIndexes there checks it; built here
// from RESULT so that this test rests on Cassandra's files alone); with two
// entries' keys swapped (the tries intact) each entry is reported, since
// the partition index maps its key elsewhere.
func TestCheckTable(t *testing.T) {
	golden.ForEachRows(t, func(t *testing.T, c golden.RowsCase) {
		lines, err := rowstsv.ReadResult(c.Result(t))
		if err != nil {
			t.Fatal(err)
		}
		var parts bytes.Buffer
		b := partitionindex.NewBuilder(&parts, partitionindex.Options{Partitioner: partitioner.ByteOrdered})
		indexed := 0
		for _, l := range lines {
			key := partitioner.ByteOrdered.Decorate(l.Key)
			if err := b.Add(&key, l.Value); err != nil {
				t.Fatal(err)
			}
			if l.Value >= 0 {
				indexed++
			}
		}
		if _, err := b.Complete(); err != nil {
			t.Fatal(err)
		}
		ix, err := partitionindex.NewIndex(parts.Bytes(), partitionindex.OpenOptions{Partitioner: partitioner.ByteOrdered})
		if err != nil {
			t.Fatal(err)
		}
		data := c.RowsDB(t)
		rep, err := audit.CheckTable(ix, data, audit.Options{})
		if err != nil || !rep.OK() || rep.Entries != int64(indexed) {
			t.Fatalf("report %+v, %v; want %d entries, no problem", rep, err, indexed)
		}
		if c.Name != "multi-partition" {
			return
		}
		bad := bytes.Clone(data)
		const entry7000, entry7002 = 31, 217
		bad[entry7000+3], bad[entry7002+3] = bad[entry7002+3], bad[entry7000+3]
		rep, err = audit.CheckTable(ix, bad, audit.Options{})
		if err != nil || rep.ProblemCount != 2 {
			t.Fatalf("swapped keys: %+v, %v", rep, err)
		}
		for i, want := range []int64{entry7000, entry7002} {
			if p := rep.Problems[i]; p.Rule != audit.RulePartitionIndex || p.Entry != want {
				t.Errorf("problem %d: %v, want the partition-index rule at entry %d", i, p, want)
			}
		}
		t.Log(rep.Problems)
	})
}
