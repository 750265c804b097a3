package rowindex

import (
	"github.com/bti-go/bti/bytecomparable"
)

// refState is the reference path's state: the previous block's last
// clustering as values (deep copies) and the last separator handed to the
// trie (fresh memory, which the trie may keep reading).
type refState struct {
	prevLast     [][]byte
	prevLastKind bytecomparable.PrefixKind
	prevSep      []byte
}

// addReference does addScratch's job the straightforward way: fresh
// encodings for every use, and the separator made a byte at a time as
// ByteSource.separatorGt streams it.
func (w *Writer) addReference(b Block) error {
	cols := w.opts.Columns
	first, err := bytecomparable.AppendClustering(nil, cols, b.First, b.FirstKind)
	if err != nil {
		return w.encodeError("first", err)
	}
	last, err := bytecomparable.AppendClustering(nil, cols, b.Last, b.LastKind)
	if err != nil {
		return w.encodeError("last", err)
	}
	var prevMax []byte
	if w.count > 0 {
		prevMax, _ = bytecomparable.AppendClustering(nil, cols, w.ref.prevLast, w.ref.prevLastKind)
	}
	if err := w.orderError(prevMax, first, last); err != nil {
		return err
	}
	sep := []byte{} // ByteComparable.EMPTY for the first block
	if w.count > 0 {
		sep = separatorGt(prevMax, first)
	}
	p, flags := appendPayload(nil, b.Offset, b.OpenDeletion)
	if err := w.trie.Add(sep, flags, p); err != nil {
		return err
	}
	w.ref.prevSep = sep
	w.ref.prevLast = cloneValues(b.Last)
	w.ref.prevLastKind = b.LastKind
	w.count++
	w.lastOffset = b.Offset
	return nil
}

// separatorGt is ByteSource.separatorGt over two byte strings: the common
// prefix, then prev's next byte plus one (end of stream counting as -1).
func separatorGt(prev, cur []byte) []byte {
	var out []byte
	for i := 0; ; i++ {
		p, c := streamByte(prev, i), streamByte(cur, i)
		if p == c {
			if c < 0 {
				return out
			}
			out = append(out, byte(c))
			continue
		}
		return append(out, byte(p+1))
	}
}

// streamByte returns b[i], or -1 (END_OF_STREAM) past the end.
func streamByte(b []byte, i int) int {
	if i < len(b) {
		return int(b[i])
	}
	return -1
}

// refEndKey is CompletePartition's end key on the reference path: the position of
// the first difference between the last clustering and the last separator,
// then RowIndexWriter.nudge run as a stream.
func (w *Writer) refEndKey() []byte {
	max, _ := bytecomparable.AppendClustering(nil, w.opts.Columns, w.ref.prevLast, w.ref.prevLastKind)
	i := 0
	for streamByte(max, i) == streamByte(w.ref.prevSep, i) && streamByte(max, i) >= 0 {
		i++
	}
	var out []byte
	src := 0 // position in the stream of max
	for cur := 0; cur <= i; {
		b := streamByte(max, src)
		src++
		if cur == i {
			if b == 0xFF {
				// Cannot nudge here: keep it and nudge the next byte.
				out = append(out, 0xFF)
				continue
			}
			b++ // past the end: -1 + 1, a 00
		}
		out = append(out, byte(b))
		cur++
	}
	return out
}

func cloneValues(vs [][]byte) [][]byte {
	out := make([][]byte, len(vs))
	for i, v := range vs {
		out[i] = append([]byte{}, v...)
	}
	return out
}
