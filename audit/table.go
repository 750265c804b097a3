package audit

import (
	"fmt"

	"github.com/bti-go/bti/partitionindex"
	"github.com/bti-go/bti/rowindex"
)

// CheckTable audits rows, a Rows.db, against ix, the Partitions.db written
// beside it: the entries are at the non-negative values of ix, and
// CheckRows checks them and the file; moreover each entry's key,
// looked up in ix under its partitioner, must give that entry's position
// (RulePartitionIndex), as BtiTableReader relies on. opts.Visit, if set,
// is called after that rule. An error means ix could not be read. ix
// itself is checked by CheckPartitions.
func CheckTable(ix *partitionindex.Index, rows []byte, opts Options) (*Report, error) {
	r, err := ix.OpenReader()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	var positions []int64
	it := r.Scan(nil, nil)
	for it.Next() {
		if pos := it.Pos(); pos >= 0 {
			positions = append(positions, pos)
		}
	}
	if err := it.Err(); err != nil {
		return nil, err
	}
	p := ix.Partitioner()
	visit := opts.Visit
	opts.Visit = func(e rowindex.Entry, blocks []rowindex.IndexInfo) (Rule, string) {
		key := p.Decorate(e.Key)
		pos, ok, err := r.Get(&key)
		switch {
		case err != nil:
			// A corrupt partition index: its own check says more.
			return RulePartitionIndex, fmt.Sprintf("looking up key %x: %v", e.Key, err)
		case !ok:
			return RulePartitionIndex, fmt.Sprintf("key %x is not found in the partition index", e.Key)
		case pos != e.Position:
			return RulePartitionIndex, fmt.Sprintf("the partition index maps key %x to %d, not to this entry", e.Key, pos)
		}
		if visit != nil {
			return visit(e, blocks)
		}
		return "", ""
	}
	return CheckRows(rows, positions, opts), nil
}
