package audit

import (
	"bytes"

	"github.com/bti-go/bti/rowindex"
	"github.com/bti-go/bti/trie"
)

// RowBlock is one entry of a partition's row index as its trie stores it:
// the separator key and the block it leads to. A Rows.db does not store a
// block's first and last clusterings, only separators between them: block
// i's clusterings are at least its Separator (whose encoding is a prefix of
// the block's first clustering's, cut one byte past where it leaves the
// previous block's last) and below the next entry's. The last entry (Info.End)
// stands for the partition's end; its Separator is the last clustering
// nudged up, so it is above every clustering of the last block.
type RowBlock struct {
	Separator []byte // byte-comparable (bytecomparable.AppendClustering), possibly cut mid-component
	Info      rowindex.IndexInfo
}

// RowBlocks appends the entries of p's row index to dst in order, each
// with its separator, and returns the extended slice. It walks the trie
// depth first with an explicit stack, a node's own entry before its
// children (a separator sorts before those it is a prefix of); a node is
// visited at most once per byte of the trie, so damaged bytes end the walk
// with an error (a *rowindex.CorruptError, or the trie's) rather than a
// loop. It is for dumps: each separator is a fresh copy.
func RowBlocks(dst []RowBlock, p *rowindex.Partition) ([]RowBlock, error) {
	t := p.Trie()
	type frame struct {
		pos  int64
		path []byte
	}
	var n trie.Shape
	budget := p.Entry.Position + 1 // nodes lie before the entry
	stack := []frame{{pos: t.Root()}}
	for len(stack) > 0 {
		f := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if budget--; budget < 0 {
			return dst, &rowindex.CorruptError{Offset: f.pos, Reason: "nodes reached more often than the file has bytes: not a tree"}
		}
		if err := shapeOf(t, f.pos, &n); err != nil {
			return dst, err
		}
		if n.Flags != 0 {
			info, err := p.Info(f.pos)
			if err != nil {
				return dst, err
			}
			dst = append(dst, RowBlock{Separator: f.path, Info: info})
		}
		// Pushed in reverse, so the smallest transition is visited first.
		for i := len(n.Children) - 1; i >= 0; i-- {
			c := n.Children[i]
			path := append(bytes.Clone(f.path), c.Transition)
			stack = append(stack, frame{pos: c.Pos, path: path})
		}
	}
	return dst, nil
}
