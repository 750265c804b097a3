package bytecomparable

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// BytesKeyEncoder must give exactly AppendBytesTokenKey's bytes whatever
// part of the previous key's output it copies: keys with long shared
// prefixes, prefixes ending inside and right after zero runs, shorter and
// longer keys, and keys that were encoded but never committed (a refused
// key must not become the one the next key copies from).
func TestBytesKeyEncoder(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	gen := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			switch r.IntN(4) {
			case 0:
				b[i] = 0 // runs of zeros end at every kind of boundary
			case 1:
				b[i] = 0xFF
			default:
				b[i] = byte(r.Uint32())
			}
		}
		return b
	}
	var e BytesKeyEncoder
	// Three output slots used in turn, as the partition index's ring does:
	// the committed key's output stays untouched while the next is written.
	var slots [3][]byte
	var prev []byte
	slot := 0
	for iter := range 3000 {
		var b []byte
		switch {
		case prev == nil || iter%7 == 0:
			b = gen(r.IntN(3 * escapeMarkEvery))
		default:
			// Share a random part of the previous key, then diverge.
			cut := r.IntN(len(prev) + 1)
			b = append(bytes.Clone(prev[:cut]), gen(r.IntN(2*escapeMarkEvery))...)
		}
		prefix := []byte{0x12, 0x34} // a non-empty dst
		want := AppendBytesTokenKey(bytes.Clone(prefix), b)
		got := e.AppendKey(append(slots[slot][:0], prefix...), b)
		slots[slot] = got
		require.Equal(t, want, got, "iteration %d: %d bytes", iter, len(b))
		require.Equal(t, len(b)/escapeMarkEvery, e.nextMarks)
		for j, m := range e.marks[:e.nextMarks] {
			full := AppendEscaped(nil, b[:(j+1)*escapeMarkEvery])
			// The mark's output is the escaped prefix without its end marker.
			require.Equal(t, full[:len(full)-1], got[len(prefix)+1:len(prefix)+1+m.out()], "mark %d", j)
			require.Equal(t, b[(j+1)*escapeMarkEvery-1] == 0, m.escaped(), "mark %d", j)
		}
		// The bytes Reused claims are equal to the committed key's output.
		if prevOut := slots[(slot+2)%3]; prev != nil && e.havePrev {
			k := e.Reused()
			require.LessOrEqual(t, k, min(len(prevOut), len(got)-len(prefix)))
			require.Equal(t, prevOut[len(prefix):len(prefix)+k], got[len(prefix):len(prefix)+k], "iteration %d: reused bytes differ", iter)
		}
		if iter%5 == 3 {
			// Refused: not committed, and its slot is reused next time.
			continue
		}
		e.Commit()
		prev = b
		slot = (slot + 1) % 3
	}
	// Reset forgets the previous key: a key sharing its prefix still encodes
	// from scratch and right.
	e.Reset()
	got := e.AppendKey(nil, prev)
	require.Equal(t, AppendBytesTokenKey(nil, prev), got)
}

// A long shared prefix is copied, not escaped again: the marks of the
// shared strides are the previous key's.
func TestBytesKeyEncoderReuses(t *testing.T) {
	prefix := bytes.Repeat([]byte{0, 1, 0xFF}, 700)
	a := append(bytes.Clone(prefix), 1)
	b := append(bytes.Clone(prefix), 2)
	var e BytesKeyEncoder
	outA := e.AppendKey(nil, a)
	e.Commit()
	// Poison the part of outA's first component past the shared strides: if
	// the encoder copied more than whole shared strides, b's output would
	// carry the poison.
	shared := len(prefix) / escapeMarkEvery * escapeMarkEvery
	m := e.marks[shared/escapeMarkEvery-1]
	copyEnd := 1 + m.out()
	want := AppendBytesTokenKey(nil, b)
	require.Equal(t, want[:copyEnd], outA[:copyEnd])
	for i := 1; i < copyEnd; i++ {
		outA[i] ^= 0x5A // the copied part: b's output must show this
	}
	outB := e.AppendKey(nil, b)
	require.NotEqual(t, want[1:copyEnd], outB[1:copyEnd], "the shared strides were escaped again, not copied")
	// Past the copied strides b is escaped afresh.
	firstEnd := 1 + len(AppendEscaped(nil, b))
	require.Equal(t, want[copyEnd:firstEnd], outB[copyEnd:firstEnd])
}

// TestBytesKeyHead: AppendHead is the start of AppendKey's output and
// decodes back to the key; and the heads of two different keys decide
// their comparison: the same diff point as the full encodings, within the
// shorter head, and the same order.
func TestBytesKeyHead(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 4))
	gen := func() []byte {
		b := make([]byte, r.IntN(7))
		for i := range b {
			b[i] = []byte{0, 0, 1, 0x40, 0xFE, 0xFF, 'a'}[r.IntN(7)]
		}
		return b
	}
	var e, f BytesKeyEncoder
	for range 20000 {
		a, b := gen(), gen()
		ha, hb := e.AppendHead(nil, a), f.AppendHead(nil, b)
		fa, fb := AppendBytesTokenKey(nil, a), AppendBytesTokenKey(nil, b)
		require.Equal(t, fa[:len(ha)], ha)
		key, err := DecodeBytesTokenHead(nil, ha)
		require.NoError(t, err)
		require.Equal(t, a, append([]byte{}, key...))
		if bytes.Equal(a, b) {
			continue
		}
		d := DiffPoint(ha, hb)
		require.Equal(t, DiffPoint(fa, fb), d, "%x %x", a, b)
		require.LessOrEqual(t, d, min(len(ha), len(hb)), "%x %x", a, b)
		require.Equal(t, bytes.Compare(fa, fb), bytes.Compare(ha, hb))
	}
	_, err := DecodeBytesTokenHead(nil, AppendBytesTokenKey(nil, []byte("x")))
	require.ErrorIs(t, err, ErrMalformed, "a full key is not a head")
}

// TestReuseHead writes every key over one of three buffers used in turn,
// as the partition index builder's ring does, telling the encoder how many
// of the buffer's bytes equal the committed head: the true count, less, or
// none. The output must be AppendHead's whatever the count, and the kept
// bytes are really kept: they are poisoned in the committed head after
// it was committed, so a copy of them would show the poison.
func TestReuseHead(t *testing.T) {
	r := rand.New(rand.NewPCG(6, 6))
	prefix := make([]byte, 5*escapeMarkEvery+7)
	for i := range prefix {
		prefix[i] = []byte{0, 0, 1, 0xFE, 0xFF, byte(r.Uint32())}[r.IntN(6)]
	}
	var e BytesKeyEncoder
	var bufs [3][]byte
	var committed []byte // a copy of the committed head
	slot, commits := 0, 0
	for iter := range 4000 {
		cut := len(prefix) - r.IntN(2*escapeMarkEvery)
		if iter%40 == 39 {
			cut = r.IntN(escapeMarkEvery) // short keys break the run
		}
		key := append(bytes.Clone(prefix[:cut]), byte(r.Uint32()), 0, byte(r.Uint32()))
		want := AppendBytesTokenKey(nil, key)
		want = want[:1+len(AppendEscaped(nil, key))+1]
		buf := bufs[slot]
		same := 0
		if committed != nil {
			same = commonPrefix(buf, committed)
			switch r.IntN(3) {
			case 0:
				same = r.IntN(same + 1) // less than known: still right
			case 1:
				same = 0
			}
		}
		got := e.ReuseHead(buf, same, key)
		require.Equal(t, want, got, "iteration %d: key of %d bytes, %d bytes kept", iter, len(key), same)
		if k := e.Reused(); committed != nil {
			require.Equal(t, committed[:k], got[:k], "iteration %d: reused bytes differ", iter)
		}
		bufs[slot] = got
		if r.IntN(7) == 0 {
			continue // refused: not committed, the buffer is written again
		}
		e.Commit()
		commits++
		committed = bytes.Clone(got)
		slot = (slot + 1) % 3
	}
	require.Greater(t, commits, 3000)

	// Poison the committed head's shared strides: a key whose buffer
	// already holds them (same) must come out right, so they were kept,
	// and one told nothing (0) must carry the poison, so they are copied.
	a := append(bytes.Clone(prefix), 1)
	b := append(bytes.Clone(prefix), 2)
	e.Reset()
	outA := e.ReuseHead(nil, 0, a)
	e.Commit()
	wantB := e.AppendHead(nil, b) // not committed
	bufB := bytes.Clone(outA)
	for i := 1; i < len(outA)-8; i++ {
		outA[i] ^= 0x5A
	}
	require.Equal(t, wantB, e.ReuseHead(bufB, len(bufB), b), "kept bytes")
	require.NotEqual(t, wantB, e.ReuseHead(nil, 0, b), "copied bytes")
}

func commonPrefix(a, b []byte) int {
	n := 0
	for n < min(len(a), len(b)) && a[n] == b[n] {
		n++
	}
	return n
}

// TestEscapeFromResumes: escaping b[i:] in state escaped, with b's earlier
// bytes readable, gives the bytes AppendEscaped gives for b past the
// escaped output of b[:i], for every split of inputs dense in zeros.
func TestEscapeFromResumes(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 8))
	for range 2000 {
		b := make([]byte, r.IntN(40))
		for i := range b {
			b[i] = []byte{0, 0, 1, 0xFF, byte(r.Uint32())}[r.IntN(5)]
		}
		full := AppendEscaped(nil, b)
		for i := 0; i <= len(b); i++ {
			head := AppendEscaped(nil, b[:i])
			n := len(head) - 1 // without the end marker
			escaped := i > 0 && b[i-1] == 0
			out := make([]byte, n+maxEscapedLen(len(b)-i)+8)
			copy(out, head[:n])
			m, esc := escapeFrom(out, n, b, i, escaped)
			m = endEscaped(out, m, esc)
			require.Equal(t, full, out[:m], "input %x from %d", b, i)
		}
	}
}
