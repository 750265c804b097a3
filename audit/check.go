package audit

import (
	"fmt"

	"github.com/bti-go/bti/partitioner"
	"github.com/bti-go/bti/rowindex"
)

// Rule names the writer rule a Problem breaks. The rules of both files are
// one vocabulary: CheckPartitions reports the first group, CheckRows the
// second, CheckTable both and RulePartitionIndex.
type Rule string

// Rules of a Partitions.db (CheckPartitions documents each).
const (
	RuleFooter      Rule = "footer"
	RuleRoot        Rule = "root"
	RuleCount       Rule = "count"
	RuleFirstKey    Rule = "first-key"
	RuleLastKey     Rule = "last-key"
	RuleNode        Rule = "node"
	RuleType        Rule = "node-type"
	RuleTransitions Rule = "transitions"
	RuleDense       Rule = "dense-span"
	RulePacking     Rule = "packing"
	RulePayload     Rule = "payload"
	RulePage        Rule = "page-boundary"
	RulePadding     Rule = "padding"
	RuleReach       Rule = "reachability"
	RulePrefix      Rule = "shortest-prefix"
	RulePositions   Rule = "positions"
	RuleEncoding    Rule = "encoding"
)

// Rules of a Rows.db (CheckRows).
const (
	// RuleOrder: two partitions share an entry, or an entry starts inside
	// the previous one.
	RuleOrder Rule = "order"
	// RuleEntry: what rowindex.Walk checks of one partition: the entry
	// decodes, its trie lies between it and the previous entry and opens,
	// its root is the empty key, its block count is the trie's, block
	// offsets increase, the end carries no open deletion.
	RuleEntry Rule = "entry"
	// RuleLayout: the trie's bytes are not those the writer (ours and
	// Cassandra's RowIndexWriter) lays out for the same separators and
	// payloads at the same position: node types, pointer sizes, page
	// placement, padding, payload encoding.
	RuleLayout Rule = "layout"
	// RuleTrailing: bytes after the last entry (Rows.db ends with it).
	RuleTrailing Rule = "trailing"
)

// RulePartitionIndex is the rule CheckTable adds to CheckRows': the
// partition index maps each entry's key to that entry.
const RulePartitionIndex Rule = "partition-index"

// PositionRule says what CheckPartitions may assume about the stored
// positions.
type PositionRule uint8

const (
	// PositionsAny assumes nothing (the synthetic golden key sets use
	// random positions).
	PositionsAny PositionRule = iota
	// PositionsIncreasing: Data.db positions and Rows.db positions each
	// strictly increase with key order, as an sstable writer records them.
	PositionsIncreasing
)

// Options configures the checks. The zero value checks a file with
// Cassandra's 4096-byte pages, assumes nothing about positions, keeps the
// first 100 problems and checks a Partitions.db footer's keys under the
// partitioner the index was opened with. Each check reads the fields that
// concern its file and ignores the others.
type Options struct {
	PageSize int // 0: 4096 (set it for files built with a test PageSize)
	// MaxProblems bounds Report.Problems (the total is always counted); 0
	// is 100.
	MaxProblems int

	// Partitions.db (CheckPartitions):

	Positions PositionRule
	// DetectPartitioner checks the footer's keys under every partitioner
	// and reports the one (or ones) that fit, instead of requiring the
	// index's own.
	DetectPartitioner bool
	// MaxNodes bounds the nodes decoded (scan and walk together); 0 allows
	// four times the readable bytes plus 16, which no file can need.
	MaxNodes int64
	// Progress, if set, is called about every million nodes with how far
	// the check is: the phase ("scan": the file front to back, done and
	// total in bytes; then "walk": the trie from the root, done and total
	// in nodes). It runs on the check's goroutine and must be quick.
	Progress func(phase string, done, total int64)

	// Rows.db (CheckRows, CheckTable):

	// Visit, if not nil, is called for every entry whose partition passed
	// RuleEntry, for the caller's own rules (a partition index that must
	// map the entry's key to it): a non-empty rule is reported with
	// detail.
	Visit func(e rowindex.Entry, blocks []rowindex.IndexInfo) (rule Rule, detail string)
}

// withDefaults fills the zero fields both checks share.
func (o Options) withDefaults() Options {
	if o.PageSize <= 0 {
		o.PageSize = 4096
	}
	if o.MaxProblems <= 0 {
		o.MaxProblems = 100
	}
	return o
}

// Problem is one broken rule. Node is the position of the Partitions.db
// node concerned and Entry that of the Rows.db partition entry concerned;
// each is -1 where it does not apply (a problem of the other file, or of the
// file as a whole: footer, padding, trailing bytes).
type Problem struct {
	Offset int64  `json:"offset"` // where it was found
	Node   int64  `json:"node"`
	Entry  int64  `json:"entry"`
	Rule   Rule   `json:"rule"`
	Detail string `json:"detail"`
}

func (p Problem) String() string {
	switch {
	case p.Node >= 0:
		return fmt.Sprintf("offset %d (node %d): %s: %s", p.Offset, p.Node, p.Rule, p.Detail)
	case p.Entry >= 0:
		return fmt.Sprintf("offset %d, entry %d: %s: %s", p.Offset, p.Entry, p.Rule, p.Detail)
	}
	return fmt.Sprintf("offset %d: %s: %s", p.Offset, p.Rule, p.Detail)
}

// Report is what a check found, for either file. The fields each check
// fills are marked; the others stay zero.
type Report struct {
	// Partitions.db: the partitioner the footer's keys were checked under
	// (the detected one with Options.DetectPartitioner); Partitioners lists
	// every partitioner whose order the footer's keys fit (nil when none
	// does; all three for an index of one key or none, which cannot tell
	// them apart).
	Partitioner  partitioner.Partitioner   `json:"-"`
	Partitioners []partitioner.Partitioner `json:"-"`
	// Size: the readable trie bytes of a Partitions.db, the bytes of a
	// Rows.db.
	Size int64 `json:"size"`
	// Entries: the trie's entries (Partitions.db), the partition entries
	// checked (Rows.db).
	Entries int64 `json:"entries"`
	// Partitions.db: nodes, by type name, and zero padding bytes.
	Nodes        int64            `json:"nodes,omitempty"`
	NodesByType  map[string]int64 `json:"nodes_by_type,omitempty"`
	PaddingBytes int64            `json:"padding_bytes"`
	// Partitions.db: Depth[d] counts entries whose stored prefix is d bytes
	// long; Pages[p] counts entries whose lookup touches p distinct pages.
	Depth []int64 `json:"depth,omitempty"`
	Pages []int64 `json:"pages_per_lookup,omitempty"`
	// Rows.db: index blocks of the partitions that passed RuleEntry.
	Blocks       int64     `json:"blocks,omitempty"`
	Problems     []Problem `json:"problems"`
	ProblemCount int64     `json:"problem_count"`
}

// OK reports whether no rule was broken.
func (r *Report) OK() bool { return r.ProblemCount == 0 }

// add counts p and keeps it if fewer than limit are kept.
func (r *Report) add(limit int, p Problem) {
	r.ProblemCount++
	if len(r.Problems) < limit {
		r.Problems = append(r.Problems, p)
	}
}
