package audit

import (
	"errors"
	"fmt"

	"github.com/bti-go/bti/partitioner"
	"github.com/bti-go/bti/partitionindex"
	"github.com/bti-go/bti/trie"
)

// ErrCheckBudget is returned when CheckPartitions would visit more nodes
// than Options.MaxNodes allows.
var ErrCheckBudget = errors.New("audit: check gave up at its node budget")

// progressEvery is how many nodes pass between Options.Progress calls
// (a mask: every 2^20).
const progressEvery = 1<<20 - 1

// CheckPartitions audits a Partitions.db without its keys: the format
// carries no checksum, and most damage leaves every lookup working while
// some answer wrong. CheckPartitions knows how the writer lays a file out and reports every place that breaks
// one of its rules. Each rule below is something Cassandra's
// PartitionIndexBuilder / IncrementalTrieWriterPageAware (trunk 69a6dc6)
// guarantees, so a file Cassandra wrote passes (every golden file does,
// including the early-open cases); the exceptions are named. Only the
// position rule is not the index writer's: it holds for files an sstable
// writer produced, so it is opt-in.
//
// Footer (RuleFooter, RuleCount, RuleFirstKey, RuleLastKey, RuleRoot):
//   - the root is the last node, and firstKeyPos is right after it
//     (PartitionIndexBuilder.complete writes the footer's keys after the
//     trie's completion, which writes the root last);
//   - the count equals the entries reached from the root;
//   - one key: first key = last key; more: first < last in the
//     partitioner's order;
//   - the first and last keys resolve to the first and last entries
//     (their encoding starts with that entry's stored prefix) with matching
//     hash bytes. This is also how the partitioner is detected
//     (FooterPartitioners).
//
// Every node (RuleNode, RuleType, RuleTransitions, RuleDense, RulePacking,
// RulePayload), checked on a linear scan of the whole trie area:
//   - it decodes and lies inside its segment; pointers point strictly
//     backwards (children are written before parents);
//   - its type is exactly the one TrieNode.typeFor gives its children at
//     its position (smallest pointer width for the farthest child, SPARSE
//     against DENSE by size, ties to DENSE): the writer chooses the type
//     when it serializes the node, from its estimate of the farthest
//     child's distance, which by then equals the real one (Cassandra
//     asserts the resulting size; docs/format.md §4.4, §7.1);
//   - SPARSE transitions strictly increase; a DENSE node spans exactly its
//     first to last child (no hole at either end); the unused nibble of a
//     packed 12-bit area is zero;
//   - payload only at leaves and every leaf has one (no stored prefix is a
//     prefix of another: encodings are prefix-free and each is cut one byte
//     past the longest prefix shared with a neighbour), flags 8..15 (the
//     hash byte is always written), the position in its minimal length
//     (SizedInts.nonZeroSize).
//
// Pages (RulePage, RulePadding, RuleReach):
//   - no node crosses a page boundary: the writer lays out only branches
//     that fit in what is left of the page, padding to the next page when
//     none fits, and before the root makes sure the root's page holds it.
//     Exempt: a node larger than a page, which the writer must cross with
//     (never with 4096-byte pages: the largest node takes 2,051 bytes plus
//     9 bytes of payload; possible with the tiny pages tests use). Nodes of
//     an early-open view's tail are not paged at all, and the view's file
//     part may end before Cutoff (makePartialRoot rounds the writer's
//     position up to a page; the bytes between are never read). A view
//     must be checked over the file as it was when the view was taken:
//     nodes written later, below Cutoff, would look like orphans;
//   - every byte between nodes is zero padding that runs to the next page
//     boundary (a zero header byte is never a node, except the root of an
//     empty index);
//   - every node is reached from the root exactly once and every pointer
//     lands on a node's start (no orphan bytes, no shared children).
//
// Order (RuleTransitions, RulePrefix): the entries' stored prefixes
// strictly increase in iteration order (which follows from the transitions
// rule and payloads only at leaves), and each is as long as the builder
// cuts it: one byte past the longest prefix it shares with either
// neighbour (docs/format.md §2.5, the diff-point rule). In an
// early-open view the last entry was cut against a key the view does not
// hold, so it may only be longer than its predecessor alone requires.
//
// Encoding (RuleEncoding): every transition is a byte the partitioner's
// key encoding can have at that depth (check_grammar.go), since every
// stored prefix is a prefix of a key's encoding, cut as above: a
// ByteOrdered prefix ends by the 40 after the token (distinct keys differ
// in it), a Murmur3 one by the terminator.
//
// Positions (RulePositions, Options.Positions = PositionsIncreasing,
// off by default): a file written by an sstable writer stores Data.db
// positions (negative payloads, ^position) and Rows.db positions (the
// non-negative ones) that each strictly increase with key order.
//
// What no check without the keys can see: a hash byte (except the first
// and last entry's, against the footer), a transition changed to a byte
// that still lies between its siblings' and that the encoding allows there,
// and a position changed to one still between its neighbours' (any position
// without PositionsIncreasing). Each leaves
// a file the writer writes for other keys or positions.
// TestCheckDetectionTable measures single-byte changes and requires every
// one that CheckPartitions lets through and that alters a lookup to be of these
// kinds: the damaged trie is byte for byte what the writer writes for the
// entries it lists.
//
// Work is linear in the file size: one scan and one walk (no recursion,
// each node decoded twice), plus a second scan and walk with two bitmaps
// only when the first two disagree on which nodes exist. Memory is
// O(depth) otherwise. A walk that would exceed Options.MaxNodes gives
// up with ErrCheckBudget.
//
// Problems go into the report; the error is non-nil only when the check
// could not run (a closed index, the budget). ix may be a complete file or
// an early-open view (partitionindex.PartialIndex.NewIndex).
func CheckPartitions(ix *partitionindex.Index, opts Options) (*Report, error) {
	rd, err := ix.OpenReader() // pins the memory while we read it
	if err != nil {
		return nil, err
	}
	defer rd.Close()
	c := newChecker(ix, opts)
	if err := c.run(); err != nil {
		return c.report, err
	}
	return c.report, nil
}

// checker holds one CheckPartitions' state. Everything it allocates is O(depth)
// (the walk's frames, the current and previous prefix, the histograms),
// except on the diagnosis path and for the problems kept.
type checker struct {
	ix     *partitionindex.Index
	t      *trie.Trie
	src    trie.Source
	opts   Options
	page   int64
	report *Report
	byType [16]int64

	// Segments: [0, fileEnd) read from src.File, [cutoff, end) from the
	// tail (absent for a complete file: cutoff = end = fileEnd).
	fileEnd, cutoff, end int64

	work, budget int64
	shape        trie.Shape

	// Scan results.
	scanNodes      int64
	scanSum        uint64
	scanXor        uint64
	scanBroken     bool
	lastStart      int64 // last node the scan found, and its end
	lastEnd        int64
	scanFailedNode int64

	walk walkState
	// encPart is the partitioner whose key encoding the transitions must
	// follow (RuleEncoding).
	encPart partitioner.Partitioner

	// diag is non-nil during the diagnosis pass, which reports only
	// reachability problems.
	diag *reachDiag
}

func newChecker(ix *partitionindex.Index, opts Options) *checker {
	opts = opts.withDefaults()
	t := ix.Trie()
	src := t.Source()
	c := &checker{ix: ix, t: t, src: src, opts: opts, page: int64(opts.PageSize),
		report: &Report{Partitioner: ix.Partitioner(), Problems: []Problem{}}, scanFailedNode: -1}
	c.fileEnd = int64(len(src.File))
	c.cutoff, c.end = c.fileEnd, c.fileEnd
	if src.Tail != nil {
		c.fileEnd = min(c.fileEnd, src.Cutoff)
		c.cutoff = src.Cutoff
		c.end = src.Cutoff + int64(len(src.Tail))
	}
	c.report.Size = c.fileEnd + (c.end - c.cutoff)
	c.budget = opts.MaxNodes
	if c.budget <= 0 {
		c.budget = 4*c.end + 16 // scan and walk, twice when diagnosing
	}
	return c
}

// problem records a broken rule (during diagnosis, only reachability).
func (c *checker) problem(off, node int64, rule Rule, format string, a ...any) {
	if c.diag != nil && rule != RuleReach {
		return
	}
	c.report.add(c.opts.MaxProblems, Problem{Offset: off, Node: node, Entry: -1, Rule: rule, Detail: fmt.Sprintf(format, a...)})
}

// spend counts one decoded node against the budget.
func (c *checker) spend() error {
	c.work++
	if c.work > c.budget {
		return fmt.Errorf("%w (%d nodes)", ErrCheckBudget, c.budget)
	}
	return nil
}

func (c *checker) run() error {
	c.checkFooter()
	if err := c.scan(); err != nil {
		return err
	}
	c.report.Nodes = c.scanNodes
	c.encPart = c.grammarPartitioner()
	if err := c.walkTrie(); err != nil {
		return err
	}
	c.finishWalk()
	if !c.scanBroken && !c.walk.aborted && (c.walk.visits != c.scanNodes || c.walk.sum != c.scanSum || c.walk.xor != c.scanXor) {
		if err := c.diagnose(); err != nil {
			return err
		}
	}
	c.report.NodesByType = make(map[string]int64)
	for t, n := range c.byType {
		if n > 0 {
			c.report.NodesByType[trie.TypeName(uint8(t))] = n
		}
	}
	return nil
}

// mix64 and mix64b are two unrelated 64-bit finalizers (splitmix64 and
// Murmur3's fmix64). The scan and the walk each add up both over the node
// positions they meet: equal counts and sums mean the same set of nodes,
// each reached once, without a bitmap of the file.
func mix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

func mix64b(x uint64) uint64 {
	x ^= x >> 33
	x *= 0xff51afd7ed558ccd
	x ^= x >> 33
	x *= 0xc4ceb9fe1a85ec53
	return x ^ x>>33
}
