package trie

// Source is the readable bytes of one trie.
//
// Positions below Cutoff are read from File; positions at or above Cutoff are
// read from Tail at pos-Cutoff. This is the early-open view Cassandra builds
// while an index is still being written: the file part is final, the tail
// holds the nodes not yet written (its pointers are computed as if it sat at
// Cutoff). When Tail is nil, Cutoff is ignored and the whole of File is
// readable.
//
// The two parts are separate segments: a node, with its fixed fields, must lie
// inside one segment, and its payload bytes are the rest of that segment.
// Positions in [len(File), Cutoff) are unreadable.
type Source struct {
	File   []byte
	Cutoff int64
	Tail   []byte
}

// segment returns the bytes of the segment holding pos, starting at pos, or
// ok=false if pos is not readable.
func (s *Source) segment(pos int64) (b []byte, ok bool) {
	if pos < 0 {
		return nil, false
	}
	if s.Tail != nil && pos >= s.Cutoff {
		off := pos - s.Cutoff
		if off >= int64(len(s.Tail)) {
			return nil, false
		}
		return s.Tail[off:], true
	}
	end := int64(len(s.File))
	if s.Tail != nil && s.Cutoff < end {
		end = s.Cutoff
	}
	if pos >= end {
		return nil, false
	}
	return s.File[pos:end], true
}

// size is the number of readable bytes; no valid trie has more nodes.
func (s *Source) size() int64 {
	n := int64(len(s.File))
	if s.Tail != nil {
		if s.Cutoff >= 0 && s.Cutoff < n {
			n = s.Cutoff
		}
		n += int64(len(s.Tail))
	}
	return n
}

// Trie is a read-only view of one on-disk trie. It is immutable and safe for
// concurrent use; lookups go through a per-goroutine Walker or Iterator.
type Trie struct {
	src  Source
	root int64
	jump *jumpTable // nil unless WithJumpTable built one
}

// New returns a trie over src whose root node is at root. It checks only
// that the root lies in a segment; every other node is checked as it is read.
func New(src Source, root int64) (*Trie, error) {
	if src.Tail != nil && src.Cutoff < 0 {
		return nil, corrupt(root, "trie view with a negative tail cutoff")
	}
	if _, ok := src.segment(root); !ok {
		return nil, corrupt(root, reasonOutOfRange)
	}
	return &Trie{src: src, root: root}, nil
}

// Root returns the root position.
func (t *Trie) Root() int64 { return t.root }

// Payload returns the payload flags of the node at pos (the low nibble of its
// header, 0 for the two SINGLE_NOPAYLOAD types) and the bytes from its
// payload position to the end of its segment. The slice aliases the source;
// the caller decodes its own format and checks its own lengths.
//
// A leaf in a complete file (no early-open tail) is answered here, without
// segment's tail and end checks; any other node goes through segment and
// nodeView (nodePayload), with the same answer for a leaf. (Payload is not
// inlined: the call to nodePayload keeps it over the inlining budget.)
func (t *Trie) Payload(pos int64) (flags uint8, payload []byte, err error) {
	if f := t.src.File; t.src.Tail == nil && uint64(pos) < uint64(len(f)) && f[pos]>>4 == byte(payloadOnly) {
		return f[pos] & 0xF, f[pos+1:], nil // what segment and nodeView give for a leaf
	}
	return t.nodePayload(pos)
}

// nodePayload is Payload for any node.
func (t *Trie) nodePayload(pos int64) (flags uint8, payload []byte, err error) {
	if seg, ok := t.src.segment(pos); ok && seg[0]>>4 == byte(payloadOnly) {
		return seg[0] & 0xF, seg[1:], nil // a leaf, the usual case: what nodeView decodes for it
	}
	var nv nodeView
	if err := nv.load(&t.src, pos); err != nil {
		return 0, nil, err
	}
	return nv.flags, nv.b[nv.ppos:], nil
}
