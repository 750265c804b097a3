package main

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/bti-go/bti/partitioner"
	"github.com/bti-go/bti/partitionindex"
	"github.com/bti-go/bti/trie"
)

const dumpUsage = `usage: bti dump --index Partitions.db [--format text|json|dot|hex] [--nodes] [--max-dot-nodes N] [--partitioner auto|P]

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
`

// smallIndex is the largest file whose nodes the text dump lists by default.
const smallIndex = 64 << 10

func runDump(args []string, stdout, _ io.Writer) error {
	fs := newFlags("dump", dumpUsage)
	index := fs.String("index", "", "Partitions.db to dump (required)")
	format := fs.String("format", "text", "output format: text, json, dot or hex")
	nodes := fs.Bool("nodes", false, "text: list every node even for a large index")
	maxDot := fs.Int("max-dot-nodes", 2000, "dot: refuse tries with more nodes than this")
	part := addPartitionerFlag(fs, true)
	rest, err := parseFlags(fs, args, stdout)
	if err != nil {
		return err
	}
	if err := noArgs(rest); err != nil {
		return err
	}
	if err := required(fs, "index"); err != nil {
		return err
	}
	if err := oneOf("format", *format, "text", "json", "dot", "hex"); err != nil {
		return err
	}
	if err := checkPartitionerFlag(*part); err != nil {
		return err
	}
	data, err := os.ReadFile(*index)
	if err != nil {
		return err
	}
	p, note, fits, err := choosePartitioner(*part, data)
	if err != nil {
		return fmt.Errorf("%s: %w", *index, err)
	}
	var ix *partitionindex.Index
	if fits {
		ix, err = partitionindex.NewIndex(data, p)
		err = hintMismatch(err)
	} else {
		// No partitioner resolves the footer's keys: the layout is still
		// worth showing (the partitioner plays no part in it).
		ix, err = partitionindex.NewIndexUnchecked(data, partitioner.Murmur3)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", *index, err)
	}
	t := ix.Trie()
	st, err := t.Stats()
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
		err = ix.WriteAnnotated(w)
	case "dot":
		if st.Nodes > int64(*maxDot) {
			return usagef("%s has %d nodes, more than --max-dot-nodes %d: dot output is for small indexes", *index, st.Nodes, *maxDot)
		}
		err = writeDot(w, t, *index)
	default:
		writeDumpText(w, info)
		if *nodes || len(data) <= smallIndex {
			fmt.Fprintln(w, "\nnodes (offsets in hex; \"=>\" crosses a page boundary):")
			err = t.Dump(w)
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

func newDumpInfo(name string, data []byte, ix *partitionindex.Index, st trie.NodeStats) dumpInfo {
	d := dumpInfo{
		File: name, Size: len(data),
		// NewIndex validated the footer; Index does not expose firstKeyPos.
		FirstKeyPos: int64(binary.BigEndian.Uint64(data[len(data)-24:])),
		Count:       ix.Count(), Root: ix.Root(),
		FirstKey: hex.EncodeToString(ix.FirstKey()), LastKey: hex.EncodeToString(ix.LastKey()),
		Nodes: st.Nodes, PayloadNodes: st.Payloads, MaxDepth: st.MaxDepth,
		NodeTypes: map[string]int64{}, PagesPerLookup: map[string]int64{},
	}
	for code, n := range st.ByType {
		if n > 0 {
			name := trie.NodeTypeName(byte(code << 4))
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

// writeDot draws the trie as a Graphviz digraph. The trie package exports
// no node enumeration, so the edges are taken from Trie.Dump's text.
func writeDot(w io.Writer, t *trie.Trie, name string) error {
	var dump bytes.Buffer
	if err := t.Dump(&dump); err != nil {
		return err
	}
	fmt.Fprintf(w, "digraph %q {\n", name)
	fmt.Fprintln(w, "  node [shape=box, fontname=\"monospace\", fontsize=10];")
	fmt.Fprintln(w, "  edge [fontname=\"monospace\", fontsize=10];")
	var stack []int64 // node offsets by depth
	for ln, line := range strings.Split(strings.TrimSuffix(dump.String(), "\n"), "\n") {
		n, err := parseDumpLine(line)
		if err != nil {
			return fmt.Errorf("dump line %d %q: %v", ln+1, line, err)
		}
		if n.depth > len(stack) {
			return fmt.Errorf("dump line %d %q: depth %d after depth %d", ln+1, line, n.depth, len(stack)-1)
		}
		stack = append(stack[:n.depth], n.pos)
		label := fmt.Sprintf("@%x\\n%s", n.pos, n.typ)
		if n.flags != 0 {
			label += "\\n" + payloadLabel(t, n.pos)
		}
		fmt.Fprintf(w, "  n%x [label=\"%s\"];\n", n.pos, label)
		if n.depth > 0 {
			style := ""
			if n.crossPage {
				style = ", style=dashed"
			}
			fmt.Fprintf(w, "  n%x -> n%x [label=\"%02x\"%s];\n", stack[n.depth-1], n.pos, n.edge, style)
		}
	}
	fmt.Fprintln(w, "}")
	return nil
}

// dumpLine is one parsed line of Trie.Dump.
type dumpLine struct {
	depth     int
	edge      byte
	crossPage bool
	pos       int64
	typ       string
	flags     int
}

// parseDumpLine parses "[depth] " (deep lines) or two spaces per level,
// then "xx -> " or "xx => " (not for the root), "@pos TYPE" and an optional
// " flags=N".
func parseDumpLine(line string) (dumpLine, error) {
	var d dumpLine
	s := line
	if strings.HasPrefix(s, "[") {
		end := strings.Index(s, "] ")
		if end < 0 {
			return d, fmt.Errorf("unterminated depth")
		}
		n, err := strconv.Atoi(s[1:end])
		if err != nil {
			return d, err
		}
		d.depth = n
		s = strings.TrimLeft(s[end+2:], " ")
	} else {
		t := strings.TrimLeft(s, " ")
		d.depth = (len(s) - len(t)) / 2
		s = t
	}
	if !strings.HasPrefix(s, "@") {
		if len(s) < 6 || (s[2:6] != " -> " && s[2:6] != " => ") {
			return d, fmt.Errorf("no edge")
		}
		b, err := strconv.ParseUint(s[:2], 16, 8)
		if err != nil {
			return d, err
		}
		d.edge, d.crossPage, s = byte(b), s[3] == '=', s[6:]
	}
	fields := strings.Fields(strings.TrimPrefix(s, "@"))
	if len(fields) < 2 {
		return d, fmt.Errorf("no node")
	}
	pos, err := strconv.ParseInt(fields[0], 16, 64)
	if err != nil {
		return d, err
	}
	d.pos, d.typ = pos, fields[1]
	if len(fields) > 2 {
		if f, ok := strings.CutPrefix(fields[2], "flags="); ok {
			d.flags, _ = strconv.Atoi(f)
		}
	}
	return d, nil
}

// payloadLabel describes a partition-index payload: hash byte and position.
func payloadLabel(t *trie.Trie, pos int64) string {
	flags, b, err := t.Payload(pos)
	if err != nil {
		return "payload: " + err.Error()
	}
	size := int(flags)
	prefix := ""
	if flags >= 8 {
		if len(b) == 0 {
			return "payload: truncated"
		}
		prefix = fmt.Sprintf("hash=%02x ", b[0])
		b, size = b[1:], int(flags)-7
	}
	if size < 1 || size > 8 || len(b) < size {
		return fmt.Sprintf("payload flags=%d: truncated", flags)
	}
	var u uint64
	for _, c := range b[:size] {
		u = u<<8 | uint64(c)
	}
	shift := uint(64 - 8*size)
	return fmt.Sprintf("%spos=%d", prefix, int64(u<<shift)>>shift)
}
