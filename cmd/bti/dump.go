package main

import (
	"bufio"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"

	"github.com/bti-go/bti/audit"
	"github.com/bti-go/bti/partitioner"
	"github.com/bti-go/bti/partitionindex"
	"github.com/bti-go/bti/trie"
)

const dumpUsage = `usage: bti dump --partitions Partitions.db [--format text|json|dot|hex] [--nodes] [--max-dot-nodes N] [--partitioner auto|P]

Prints the footer (firstKeyPos, count, root, first and last key), the number
of nodes of each type, the maximum depth, a histogram of the 4096-byte pages
an exact lookup reads, and index bytes per key. The text format also lists
every node (trie.Dump) when the file is at most 64 KiB, or always with
--nodes. The dot format draws the trie for Graphviz ("| dot -Tsvg"); it
refuses (exit status 2) tries of more than --max-dot-nodes nodes. The hex
format is the annotated hex dump of the whole file in file order (each node
with its type, children and payload; padding; footer), the layout the
project's golden files in testdata/annotated hold.

The text and json formats name the partitioner and how it was chosen: given,
detected (the default, auto: the one under which the footer's first and last
keys resolve to the first and last entries), assumed (an index of zero or
one key fits every partitioner) or unknown (none fits: the file is damaged
or from another partitioner; the layout is dumped all the same).

Memory: the file is mapped, not read into memory; the summary walks the
trie holding its frames (bounded by its depth). The node list (--nodes, or
any index under 64 KiB) prints as it walks. --format hex first lists every
reachable node in memory (about 150 bytes a node, sorted by position), and
dot is refused above --max-dot-nodes: both are for small files.
`

// smallIndex is the largest file whose nodes the text dump lists by default.
const smallIndex = 64 << 10

func runDump(args []string, stdout, _ io.Writer) (err error) {
	fs := newFlags("dump", dumpUsage)
	index := addPartitionsFlag(fs, "Partitions.db to dump (required)")
	format := fs.String("format", "text", "output format: text, json, dot or hex")
	nodes := fs.Bool("nodes", false, "text: list every node even for a large index")
	maxDot := fs.Int("max-dot-nodes", 2000, "dot: refuse tries with more nodes than this")
	part := addPartitionerFlag(fs, true)
	if err := parseCommand(fs, args, stdout, "partitions"); err != nil {
		return err
	}
	if err := oneOf("format", *format, "text", "json", "dot", "hex"); err != nil {
		return err
	}
	if err := checkPartitionerFlag(*part); err != nil {
		return err
	}
	data, unmap, err := mapFile(*index)
	if err != nil {
		return err
	}
	defer unmapAfterSuccess(&err, unmap)
	p, note, fits, err := choosePartitioner(*part, data)
	if err != nil {
		return fmt.Errorf("%s: %w", *index, err)
	}
	var ix *partitionindex.Index
	if fits {
		ix, err = partitionindex.NewIndex(data, partitionindex.OpenOptions{Partitioner: p})
		err = hintMismatch(err)
	} else {
		// No partitioner resolves the footer's keys: the layout is still
		// worth showing (the partitioner plays no part in it).
		ix, err = partitionindex.NewIndex(data, partitionindex.OpenOptions{Partitioner: partitioner.Murmur3, SkipPartitionerCheck: true})
	}
	if err != nil {
		return fmt.Errorf("%s: %w", *index, err)
	}
	t := ix.Trie()
	st, err := audit.CountTrie(t)
	if err != nil {
		return fmt.Errorf("%s: %w", *index, err)
	}
	info := newDumpInfo(*index, data, ix, st)
	info.Partitioner, info.PartitionerNote = p.String(), note
	if !fits {
		info.Partitioner = "unknown"
	}

	w := bufio.NewWriter(stdout)
	switch *format {
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		err = enc.Encode(info)
	case "hex":
		err = audit.WriteAnnotated(w, data)
	case "dot":
		if st.Nodes > int64(*maxDot) {
			return usagef("%s has %d nodes, more than --max-dot-nodes %d: dot output is for small indexes", *index, st.Nodes, *maxDot)
		}
		err = writeDot(w, ix, *index)
	default:
		writeDumpText(w, info)
		if *nodes || len(data) <= smallIndex {
			fmt.Fprintln(w, "\nnodes (offsets in hex; \"=>\" crosses a page boundary):")
			err = audit.DumpTrie(w, t)
		}
	}
	if ferr := w.Flush(); err == nil {
		err = ferr
	}
	if err != nil {
		return fmt.Errorf("%s: %w", *index, err)
	}
	return nil
}

// dumpInfo is the summary dump prints; its JSON form is the json format.
type dumpInfo struct {
	File            string           `json:"file"`
	Size            int              `json:"size"`
	Partitioner     string           `json:"partitioner"`
	PartitionerNote string           `json:"partitioner_note"`
	FirstKeyPos     int64            `json:"first_key_pos"`
	Count           int64            `json:"count"`
	Root            int64            `json:"root"`
	FirstKey        string           `json:"first_key"`
	LastKey         string           `json:"last_key"`
	Nodes           int64            `json:"nodes"`
	PayloadNodes    int64            `json:"payload_nodes"`
	NodeTypes       map[string]int64 `json:"node_types"`
	MaxDepth        int              `json:"max_depth"`
	PagesPerLookup  map[string]int64 `json:"pages_per_lookup"`
	BytesPerKey     float64          `json:"bytes_per_key"`

	typeOrder []string // node type names in type-code order, for text
	pageOrder []string
}

func newDumpInfo(name string, data []byte, ix *partitionindex.Index, st audit.TrieStats) dumpInfo {
	d := dumpInfo{
		File: name, Size: len(data),
		FirstKeyPos: ix.FirstKeyPos(),
		Count:       ix.Count(), Root: ix.Root(),
		FirstKey: hex.EncodeToString(ix.FirstKey()), LastKey: hex.EncodeToString(ix.LastKey()),
		Nodes: st.Nodes, PayloadNodes: st.Payloads, MaxDepth: st.MaxDepth,
		NodeTypes: map[string]int64{}, PagesPerLookup: map[string]int64{},
	}
	for code, n := range st.ByType {
		if n > 0 {
			name := trie.TypeName(uint8(code))
			d.NodeTypes[name] = n
			d.typeOrder = append(d.typeOrder, name)
		}
	}
	for pages, n := range st.PagesPerPayload {
		if n > 0 {
			k := strconv.Itoa(pages)
			d.PagesPerLookup[k] = n
			d.pageOrder = append(d.pageOrder, k)
		}
	}
	if d.Count > 0 {
		d.BytesPerKey = float64(len(data)) / float64(d.Count)
	}
	return d
}

func writeDumpText(w io.Writer, d dumpInfo) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "file\t%s\t(%d bytes)\n", d.File, d.Size)
	fmt.Fprintf(tw, "partitioner\t%s\t(%s)\n", d.Partitioner, d.PartitionerNote)
	fmt.Fprintf(tw, "firstKeyPos\t%d\n", d.FirstKeyPos)
	fmt.Fprintf(tw, "count\t%d\n", d.Count)
	fmt.Fprintf(tw, "root\t%d\t(0x%x)\n", d.Root, d.Root)
	fmt.Fprintf(tw, "first key\t%s\n", d.FirstKey)
	fmt.Fprintf(tw, "last key\t%s\n", d.LastKey)
	fmt.Fprintf(tw, "bytes/key\t%.3f\n", d.BytesPerKey)
	fmt.Fprintf(tw, "nodes\t%d\t(%d with payload)\n", d.Nodes, d.PayloadNodes)
	fmt.Fprintf(tw, "max depth\t%d\n", d.MaxDepth)
	fmt.Fprintln(tw, "node types:")
	for _, name := range d.typeOrder {
		fmt.Fprintf(tw, "  %s\t%d\n", name, d.NodeTypes[name])
	}
	fmt.Fprintln(tw, "pages per lookup:")
	for _, k := range d.pageOrder {
		n := d.PagesPerLookup[k]
		fmt.Fprintf(tw, "  %s\t%d\t(%.2f%%)\n", k, n, 100*float64(n)/float64(max(d.PayloadNodes, 1)))
	}
	_ = tw.Flush()
}

// writeDot draws the trie as a Graphviz digraph: nodes depth first from
// the root, children in ascending byte order (audit.DumpTrie's order),
// edges that cross a 4096-byte page dashed (DumpTrie's "=>").
func writeDot(w io.Writer, ix *partitionindex.Index, name string) error {
	t := ix.Trie()
	fmt.Fprintf(w, "digraph %q {\n", name)
	fmt.Fprintln(w, "  node [shape=box, fontname=\"monospace\", fontsize=10];")
	fmt.Fprintln(w, "  edge [fontname=\"monospace\", fontsize=10];")
	// A node with a pointer that does not point strictly backwards is an
	// error here, so the walk ends; the budget bounds it on a damaged file
	// whose nodes share children, as audit.DumpTrie's does.
	budget := ix.FirstKeyPos()
	type visit struct {
		parent int64 // -1 for the root
		edge   byte
		pos    int64
	}
	stack := []visit{{parent: -1, pos: ix.Root()}}
	var n trie.Shape
	for len(stack) > 0 {
		v := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if budget--; budget < 0 {
			return &partitionindex.CorruptError{Offset: v.pos, Reason: "nodes reached more often than the file has bytes: not a tree"}
		}
		if err := t.Shape(v.pos, &n); err != nil {
			return err
		}
		if n.BadPointers > 0 {
			return &partitionindex.CorruptError{Offset: v.pos, Reason: "trie child pointer does not point strictly backwards"}
		}
		label := fmt.Sprintf("@%x\\n%s", n.Pos, trie.TypeName(n.Type))
		if n.Flags != 0 {
			label += "\\n" + payloadLabel(ix, n.Pos)
		}
		fmt.Fprintf(w, "  n%x [label=\"%s\"];\n", n.Pos, label)
		if v.parent >= 0 {
			style := ""
			if v.parent/trie.DefaultPageSize != v.pos/trie.DefaultPageSize {
				style = ", style=dashed"
			}
			fmt.Fprintf(w, "  n%x -> n%x [label=\"%02x\"%s];\n", v.parent, v.pos, v.edge, style)
		}
		// Pushed in reverse, so the smallest byte is drawn first.
		for i := len(n.Children) - 1; i >= 0; i-- {
			c := n.Children[i]
			stack = append(stack, visit{parent: n.Pos, edge: c.Transition, pos: c.Pos})
		}
	}
	fmt.Fprintln(w, "}")
	return nil
}

// payloadLabel describes a partition-index payload: hash byte and position.
func payloadLabel(ix *partitionindex.Index, pos int64) string {
	p, _, err := audit.Payload(ix, pos)
	switch {
	case err != nil:
		return "payload: " + err.Error()
	case p.HasHash:
		return fmt.Sprintf("hash=%02x pos=%d", p.Hash, p.Position)
	}
	return fmt.Sprintf("pos=%d", p.Position)
}
