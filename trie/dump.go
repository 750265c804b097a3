package trie

import (
	"bufio"
	"io"
	"strconv"
)

// maxIndent caps the indentation of Dump; deeper lines carry their depth.
const maxIndent = 32

// walkFrame is one level of the depth-first walks of Dump and Stats.
type walkFrame struct {
	node  int64
	slot  int // last slot visited
	pages int // distinct pages on the path from the root to node
}

// Dump writes every node reachable from the root, depth first with children
// in ascending byte order, one line per node:
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
// the error.
func (t *Trie) Dump(w io.Writer) error {
	d := dumper{t: t, bw: bufio.NewWriter(w)}
	err := d.run()
	if ferr := d.bw.Flush(); err == nil {
		err = ferr
	}
	return err
}

// dumper holds the state of one Dump.
type dumper struct {
	t    *Trie
	bw   *bufio.Writer
	nv   nodeView
	line []byte
}

func (d *dumper) run() error {
	t := d.t
	budget := t.src.size()
	if err := d.nv.load(&t.src, t.root); err != nil {
		return err
	}
	if err := d.emit(0, -1, t.root); err != nil {
		return err
	}
	stack := []walkFrame{{node: t.root, slot: -1}}
	for len(stack) > 0 {
		top := &stack[len(stack)-1]
		if d.nv.pos != top.node {
			if err := d.nv.load(&t.src, top.node); err != nil {
				return err
			}
		}
		j := top.slot + 1
		if j >= d.nv.n {
			stack = stack[:len(stack)-1]
			continue
		}
		top.slot = j
		c := d.nv.child(j)
		if c == none {
			continue
		}
		if c == badPointer {
			return corrupt(d.nv.pos, reasonBadPointer)
		}
		if budget--; budget < 0 {
			return corrupt(c, reasonNotATree)
		}
		parent, tb := d.nv.pos, d.nv.transitionByte(j)
		if err := d.nv.load(&t.src, c); err != nil {
			return err
		}
		if err := d.emit(len(stack), tb, parent); err != nil {
			return err
		}
		stack = append(stack, walkFrame{node: c, slot: -1})
	}
	return nil
}

// emit writes the line of the node in d.nv, reached from parent by byte tb
// (tb < 0 for the root).
func (d *dumper) emit(depth int, tb int, parent int64) error {
	line := d.line[:0]
	ind := depth
	if ind > maxIndent {
		ind = maxIndent
		line = append(line, '[')
		line = strconv.AppendInt(line, int64(depth), 10)
		line = append(line, "] "...)
	}
	for i := 0; i < ind; i++ {
		line = append(line, ' ', ' ')
	}
	pos := d.nv.pos
	if tb >= 0 {
		line = appendHexByte(line, byte(tb))
		if parent/DefaultPageSize == pos/DefaultPageSize {
			line = append(line, " -> "...)
		} else {
			line = append(line, " => "...)
		}
	}
	line = append(line, '@')
	line = strconv.AppendInt(line, pos, 16)
	line = append(line, ' ')
	line = append(line, d.nv.typ.String()...)
	if d.nv.flags != 0 {
		line = append(line, " flags="...)
		line = strconv.AppendInt(line, int64(d.nv.flags), 10)
	}
	line = append(line, '\n')
	d.line = line
	_, err := d.bw.Write(line)
	return err
}

func appendHexByte(b []byte, v byte) []byte {
	const digits = "0123456789abcdef"
	return append(b, digits[v>>4], digits[v&0xF])
}

// NodeStats describes the nodes reachable from a trie's root.
type NodeStats struct {
	Nodes    int64     // nodes reached
	ByType   [16]int64 // nodes per type code (index = high nibble)
	Payloads int64     // nodes with non-zero payload flags
	MaxDepth int       // longest root-to-node path, in edges
	// PagesPerPayload[k] counts the payload nodes whose path from the root
	// (both ends included) touches k distinct 4096-byte pages; this is the
	// number of page reads a lookup of that entry costs.
	PagesPerPayload []int64
}

// Stats walks every node reachable from the root (explicit stack, so any
// depth is fine) and counts them.
func (t *Trie) Stats() (NodeStats, error) {
	var (
		st     NodeStats
		nv     nodeView
		stack  []walkFrame
		budget = t.src.size()
	)
	if err := nv.load(&t.src, t.root); err != nil {
		return st, err
	}
	st.count(&nv, 0, 1)
	stack = append(stack, walkFrame{node: t.root, slot: -1, pages: 1})
	for len(stack) > 0 {
		top := &stack[len(stack)-1]
		if nv.pos != top.node {
			if err := nv.load(&t.src, top.node); err != nil {
				return st, err
			}
		}
		j := top.slot + 1
		if j >= nv.n {
			stack = stack[:len(stack)-1]
			continue
		}
		top.slot = j
		c := nv.child(j)
		if c == none {
			continue
		}
		if c == badPointer {
			return st, corrupt(nv.pos, reasonBadPointer)
		}
		if budget--; budget < 0 {
			return st, corrupt(c, reasonNotATree)
		}
		// Positions fall along a path, so a page, once left, is never
		// entered again: distinct pages = page changes + 1.
		pages := top.pages
		if c/DefaultPageSize != nv.pos/DefaultPageSize {
			pages++
		}
		if err := nv.load(&t.src, c); err != nil {
			return st, err
		}
		st.count(&nv, len(stack), pages)
		stack = append(stack, walkFrame{node: c, slot: -1, pages: pages})
	}
	return st, nil
}

// PathPages appends to dst the 4096-byte page number of every node an exact
// lookup of key reads (the nodes Walker.Exact visits), root first, one entry
// per node, and returns the extended slice.
func (t *Trie) PathPages(dst []int64, key []byte) ([]int64, error) {
	var nv nodeView
	if err := nv.load(&t.src, t.root); err != nil {
		return dst, err
	}
	for k := 0; ; k++ {
		dst = append(dst, nv.pos/DefaultPageSize)
		i := nv.search(keyByte(key, k))
		if i < 0 {
			return dst, nil
		}
		c := nv.child(i)
		if c < 0 {
			return dst, corrupt(nv.pos, reasonBadPointer)
		}
		if err := nv.load(&t.src, c); err != nil {
			return dst, err
		}
	}
}

// count adds the node in nv, found at depth with pages distinct pages on its
// path, to st.
func (st *NodeStats) count(nv *nodeView, depth, pages int) {
	st.Nodes++
	st.ByType[nv.typ]++
	if depth > st.MaxDepth {
		st.MaxDepth = depth
	}
	if nv.flags != 0 {
		st.Payloads++
		for len(st.PagesPerPayload) <= pages {
			st.PagesPerPayload = append(st.PagesPerPayload, 0)
		}
		st.PagesPerPayload[pages]++
	}
}
