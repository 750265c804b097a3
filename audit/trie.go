package audit

import (
	"bufio"
	"io"
	"strconv"

	"github.com/bti-go/bti/trie"
)

// The tools' views of one trie (either index file's): an annotated
// depth-first dump, node statistics and the pages one lookup reads. They are
// built on trie's one node accessor, trie.Trie.Shape, and read nothing a
// storage engine's lookups need.

// maxIndent caps the indentation of DumpTrie; deeper lines carry their depth.
const maxIndent = 32

// reasonBadPointer is trie's wording for a child pointer that does not point
// strictly backwards (Shape counts them in BadPointers).
const reasonBadPointer = "trie child pointer does not point strictly backwards"

// reasonNotATree bounds a walk over shared or cyclic children.
const reasonNotATree = "more trie nodes reached than the bytes can hold (shared or cyclic children)"

// shapeOf decodes the node at pos into s and makes a bad pointer an error,
// for the walks that follow every child.
func shapeOf(t *trie.Trie, pos int64, s *trie.Shape) error {
	if err := t.Shape(pos, s); err != nil {
		return err
	}
	if s.BadPointers > 0 {
		return &trie.CorruptError{Offset: pos, Reason: reasonBadPointer}
	}
	return nil
}

// trieFrame is one level of trieWalk: the node and its children still to
// visit. The frames beyond the stack's length keep their Children memory
// for the next push.
type trieFrame struct {
	shape trie.Shape
	next  int // index into shape.Children of the next child to visit
	pages int // distinct pages on the path from the root to this node
}

// trieWalk visits every node reachable from t's root, depth first with
// children in ascending byte order, with an explicit stack (so any depth is
// fine). visit gets the node, its depth, its parent's position and the
// transition byte that led to it (-1 and -1 for the root), and the number of
// distinct 4096-byte pages on its path from the root. A node is visited at
// most once per readable byte, so shared or cyclic children end the walk
// with a *trie.CorruptError instead of a loop.
func trieWalk(t *trie.Trie, visit func(s *trie.Shape, depth int, parent int64, tb int, pages int) error) error {
	src := t.Source()
	budget := int64(len(src.File)) + int64(len(src.Tail)) // no valid trie has more nodes
	stack := make([]trieFrame, 1, 16)
	if err := shapeOf(t, t.Root(), &stack[0].shape); err != nil {
		return err
	}
	stack[0].pages = 1
	if err := visit(&stack[0].shape, 0, -1, -1, 1); err != nil {
		return err
	}
	for len(stack) > 0 {
		top := &stack[len(stack)-1]
		if top.next >= len(top.shape.Children) {
			stack = stack[:len(stack)-1]
			continue
		}
		c := top.shape.Children[top.next]
		top.next++
		if budget--; budget < 0 {
			return &trie.CorruptError{Offset: c.Pos, Reason: reasonNotATree}
		}
		// Positions fall along a path, so a page, once left, is never
		// entered again: distinct pages = page changes + 1.
		parent, pages := top.shape.Pos, top.pages
		if c.Pos/trie.DefaultPageSize != parent/trie.DefaultPageSize {
			pages++
		}
		if len(stack) < cap(stack) {
			stack = stack[:len(stack)+1]
		} else {
			stack = append(stack, trieFrame{})
		}
		f := &stack[len(stack)-1]
		f.next, f.pages = 0, pages
		if err := shapeOf(t, c.Pos, &f.shape); err != nil {
			return err
		}
		if err := visit(&f.shape, len(stack)-1, parent, int(c.Transition), pages); err != nil {
			return err
		}
	}
	return nil
}

// DumpTrie writes every node of t reachable from the root, depth first with
// children in ascending byte order, one line per node:
//
//	@15 SINGLE_NOPAYLOAD_4
//	  40 -> @f DENSE_12
//	    61 -> @6 SPARSE_8
//	      00 -> @0 PAYLOAD_ONLY flags=8
//
// Offsets are hexadecimal; "=>" replaces "->" when the child lies in another
// 4096-byte page than its parent (Cassandra's dump marks those with "==").
// Indentation is two spaces per level up to 32 levels; deeper lines start
// with "[depth]". On corrupt bytes it writes what it could reach and returns
// the error (a *trie.CorruptError). It holds one decoded node per level of
// the deepest path.
func DumpTrie(w io.Writer, t *trie.Trie) error {
	bw := bufio.NewWriter(w)
	var line []byte
	err := trieWalk(t, func(s *trie.Shape, depth int, parent int64, tb int, _ int) error {
		line = appendDumpLine(line[:0], s, depth, parent, tb)
		_, err := bw.Write(line)
		return err
	})
	if ferr := bw.Flush(); err == nil {
		err = ferr
	}
	return err
}

// appendDumpLine appends DumpTrie's line for the node s, reached from
// parent by byte tb (tb < 0 for the root).
func appendDumpLine(line []byte, s *trie.Shape, depth int, parent int64, tb int) []byte {
	ind := depth
	if ind > maxIndent {
		ind = maxIndent
		line = append(line, '[')
		line = strconv.AppendInt(line, int64(depth), 10)
		line = append(line, "] "...)
	}
	for range ind {
		line = append(line, ' ', ' ')
	}
	if tb >= 0 {
		const digits = "0123456789abcdef"
		line = append(line, digits[tb>>4], digits[tb&0xF])
		if parent/trie.DefaultPageSize == s.Pos/trie.DefaultPageSize {
			line = append(line, " -> "...)
		} else {
			line = append(line, " => "...)
		}
	}
	line = append(line, '@')
	line = strconv.AppendInt(line, s.Pos, 16)
	line = append(line, ' ')
	line = append(line, trie.TypeName(s.Type)...)
	if s.Flags != 0 {
		line = append(line, " flags="...)
		line = strconv.AppendInt(line, int64(s.Flags), 10)
	}
	return append(line, '\n')
}

// TrieStats describes the nodes reachable from a trie's root.
type TrieStats struct {
	Nodes    int64      // nodes reached
	ByType   NodeCounts // nodes per type code (index = high nibble)
	Payloads int64      // nodes with non-zero payload flags
	MaxDepth int        // longest root-to-node path, in edges
	// PagesPerPayload[k] counts the payload nodes whose path from the root
	// (both ends included) touches k distinct 4096-byte pages; this is the
	// number of page reads a lookup of that entry costs.
	PagesPerPayload []int64
}

// CountTrie walks every node of t reachable from the root (as DumpTrie
// does, so any depth and any bytes are safe) and counts them.
func CountTrie(t *trie.Trie) (TrieStats, error) {
	var st TrieStats
	err := trieWalk(t, func(s *trie.Shape, depth int, _ int64, _ int, pages int) error {
		st.Nodes++
		st.ByType[s.Type]++
		st.MaxDepth = max(st.MaxDepth, depth)
		if s.Flags != 0 {
			st.Payloads++
			for len(st.PagesPerPayload) <= pages {
				st.PagesPerPayload = append(st.PagesPerPayload, 0)
			}
			st.PagesPerPayload[pages]++
		}
		return nil
	})
	return st, err
}

// TriePathPages appends to dst the 4096-byte page number of every node an
// exact lookup of key in t reads (the nodes trie.Walker.Exact visits), root
// first, one entry per node, and returns the extended slice. A node on the
// path with a pointer that does not point strictly backwards, when the key's
// next byte has no good child, is reported as corruption: the lookup could
// have needed that pointer.
func TriePathPages(dst []int64, t *trie.Trie, key []byte) ([]int64, error) {
	var s trie.Shape
	if err := t.Shape(t.Root(), &s); err != nil {
		return dst, err
	}
	for k := 0; ; k++ {
		dst = append(dst, s.Pos/trie.DefaultPageSize)
		if k >= len(key) {
			return dst, nil
		}
		next := int64(-1)
		for _, c := range s.Children {
			if c.Transition == key[k] {
				next = c.Pos
				break
			}
		}
		if next < 0 {
			if s.BadPointers > 0 {
				return dst, &trie.CorruptError{Offset: s.Pos, Reason: reasonBadPointer}
			}
			return dst, nil
		}
		if err := t.Shape(next, &s); err != nil {
			return dst, err
		}
	}
}
