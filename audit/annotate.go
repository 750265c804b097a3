package audit

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/bti-go/bti/partitionindex"
	"github.com/bti-go/bti/trie"
)

// WriteAnnotated writes the Partitions.db file in data as an annotated hex
// dump, one item per line group, in file order:
//
//	000000-000002  08 5a ff           PAYLOAD_ONLY  payload: hash 5a, position -1 (Data.db 0)
//	000006-00000b  50 02 00 62 06 03  SPARSE_8  00->000000 62->000003
//	000017-00001c  00 01 61 ...       first key (1 bytes) 61
//
// Padding and bytes no node covers are shown as such. It is what the
// project's own golden files hold, so a layout change shows up as a
// readable diff, and what bti dump --format hex prints. It takes the bytes
// of a complete file (an early-open view has no footer and no file of its
// own to show), under no partitioner: the layout does not depend on one.
// A damaged file is a *partitionindex.CorruptError, after the lines that
// could be written.
//
// Memory: it lists every reachable node (about 150 bytes a node, sorted by
// position) before it writes: it is for small files.
func WriteAnnotated(w io.Writer, data []byte) error {
	ix, err := partitionindex.NewIndex(data, partitionindex.OpenOptions{SkipPartitionerCheck: true})
	if err != nil {
		return err
	}
	defer ix.Close()
	bw := bufio.NewWriter(w)
	nodes, err := reachableNodes(ix)
	if err != nil {
		return err
	}
	var at int64
	for _, n := range nodes {
		if n.Pos < at {
			return &partitionindex.CorruptError{Offset: n.Pos, Reason: "nodes overlap"}
		}
		if n.Pos > at {
			writeGap(bw, data, at, n.Pos)
		}
		size := int64(n.FixedSize)
		note := describeNode(n)
		if n.Flags != 0 {
			p, _, err := Payload(ix, n.Pos)
			if err != nil {
				return err
			}
			size += int64(p.Size)
			if p.HasHash {
				note += fmt.Sprintf("  payload: hash %02x, position %s", p.Hash, describePosition(p.Position))
			} else {
				note += fmt.Sprintf("  payload: position %s", describePosition(p.Position))
			}
		}
		writeItem(bw, data, n.Pos, n.Pos+size, note)
		at = n.Pos + size
	}
	const footerLength = 24 // firstKeyPos, key count, root: big-endian int64s
	footer := int64(len(data)) - footerLength
	firstKeyPos := ix.FirstKeyPos()
	if at > firstKeyPos {
		// Payload sizes come from damaged flags: the last node runs into
		// the footer's keys.
		return &partitionindex.CorruptError{Offset: at, Reason: fmt.Sprintf("the trie's last node ends at %d, past the footer's keys at %d", at, firstKeyPos)}
	}
	if at < firstKeyPos {
		writeGap(bw, data, at, firstKeyPos)
	}
	first := ix.FirstKey()
	writeItem(bw, data, firstKeyPos, firstKeyPos+2+int64(len(first)), fmt.Sprintf("first key, length %d", len(first)))
	lastPos := firstKeyPos + 2 + int64(len(first))
	writeItem(bw, data, lastPos, footer, fmt.Sprintf("last key, length %d", len(ix.LastKey())))
	writeItem(bw, data, footer, footer+8, fmt.Sprintf("firstKeyPos %d", firstKeyPos))
	writeItem(bw, data, footer+8, footer+16, fmt.Sprintf("key count %d", ix.Count()))
	writeItem(bw, data, footer+16, footer+24, fmt.Sprintf("root %d", ix.Root()))
	return bw.Flush()
}

// reachableNodes lists every node reachable from the root, by position.
func reachableNodes(ix *partitionindex.Index) ([]trie.Shape, error) {
	var out []trie.Shape
	seen := map[int64]bool{}
	stack := []int64{ix.Root()}
	for len(stack) > 0 {
		pos := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[pos] {
			continue
		}
		seen[pos] = true
		var n trie.Shape
		if err := shapeOf(ix.Trie(), pos, &n); err != nil {
			return nil, err
		}
		out = append(out, n)
		for _, c := range n.Children {
			stack = append(stack, c.Pos)
		}
	}
	slices.SortFunc(out, func(a, b trie.Shape) int { return int(a.Pos - b.Pos) })
	return out, nil
}

func describeNode(n trie.Shape) string {
	var b strings.Builder
	b.WriteString(trie.TypeName(n.Type))
	for i, c := range n.Children {
		if i == 0 {
			b.WriteString(" ")
		}
		fmt.Fprintf(&b, " %02x->%06x", c.Transition, c.Pos)
	}
	return b.String()
}

func describePosition(v int64) string {
	if partitionindex.IsDataPosition(v) {
		return fmt.Sprintf("%d (Data.db %d)", v, partitionindex.PositionOffset(v))
	}
	return fmt.Sprintf("%d (Rows.db)", v)
}

// writeGap shows bytes no node covers: zero padding to a page boundary, or
// anything else (which a valid file never has).
func writeGap(w *bufio.Writer, data []byte, from, to int64) {
	zero := true
	for _, c := range data[from:to] {
		if c != 0 {
			zero = false
			break
		}
	}
	if zero {
		fmt.Fprintf(w, "%06x-%06x  (%d zero bytes of padding)\n", from, to-1, to-from)
		return
	}
	writeItem(w, data, from, to, "bytes no node covers")
}

// writeItem prints data[from:to] as hex, 16 bytes a line, the note on the
// first line.
func writeItem(w *bufio.Writer, data []byte, from, to int64, note string) {
	if to > int64(len(data)) {
		to = int64(len(data))
	}
	for off := from; off < to || off == from; off += 16 {
		end := min(off+16, to)
		var hex strings.Builder
		for i, c := range data[off:end] {
			if i > 0 {
				hex.WriteByte(' ')
			}
			fmt.Fprintf(&hex, "%02x", c)
		}
		if off == from {
			fmt.Fprintf(w, "%06x-%06x  %-47s  %s\n", from, to-1, hex.String(), note)
		} else {
			fmt.Fprintf(w, "%13s  %s\n", "", hex.String())
		}
		if end >= to {
			break
		}
	}
}
