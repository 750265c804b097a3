package bytecomparable

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// escapePaths runs f with escapeFrom's vector path off, then on where the
// CPU has it (haveEscapeVector), so that both paths meet the same checks
// on a machine with AVX-512 and the word loop is still tested there.
func escapePaths(t *testing.T, f func(t *testing.T)) {
	t.Helper()
	have := haveEscapeVector
	defer func() { haveEscapeVector = have }()
	haveEscapeVector = false
	t.Run("path=words", f)
	if !have {
		t.Log("no escapeVector instructions on this CPU: the vector path is not run")
		return
	}
	haveEscapeVector = true
	t.Run("path=vector", f)
}

// escapeWant is naiveEscape of b after the state escaped (a zero before
// b), without the end marker.
func escapeWant(b []byte, escaped bool) []byte {
	if !escaped {
		w := naiveEscape(b)
		return w[:len(w)-1]
	}
	w := naiveEscape(append([]byte{0}, b...))
	return w[1 : len(w)-1]
}

// escapeVector gives naiveEscape's bytes and state for inputs of 0 to 200
// bytes dense in zeros (runs that end and go on across the 16-byte halves
// and 32-byte chunks), after either state, and writes nothing past
// escapeVectorRoom: the bytes after it, in the same array, keep their
// canary.
func TestEscapeVector(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 7))
	vals := []byte{0, 0, 0, 1, 0x80, 0xFE, 0xFF}
	const canary = 0xA5
	for range 100_000 {
		b := make([]byte, r.IntN(201))
		for i := range b {
			b[i] = vals[r.IntN(len(vals))]
		}
		escaped := r.IntN(2) == 1
		room := escapeVectorRoom(len(b))
		buf := bytes.Repeat([]byte{canary}, room+64)
		n, esc := escapeVector(buf[:room], b, escaped)
		want := escapeWant(b, escaped)
		wantEsc := escaped
		if len(b) > 0 {
			wantEsc = b[len(b)-1] == 0
		}
		if !bytes.Equal(buf[:n], want) || esc != wantEsc {
			t.Fatalf("escapeVector(%x, escaped %v) = %x, %v; want %x, %v", b, escaped, buf[:n], esc, want, wantEsc)
		}
		for i := room; i < len(buf); i++ {
			if buf[i] != canary {
				t.Fatalf("escapeVector(%x, escaped %v) wrote out[%d], past its room of %d", b, escaped, i, room)
			}
		}
	}
}

// Every word of eight bytes over {00, 01, 80, FF} at every offset of a
// 32-byte chunk and across two (after 0 to 40 other bytes), after either
// state: escapeVector must give naiveEscape's bytes.
func TestEscapeVectorEveryWord(t *testing.T) {
	vals := []byte{0x00, 0x01, 0x80, 0xFF}
	out := make([]byte, escapeVectorRoom(48))
	for code := range 1 << 16 {
		var word [8]byte
		for j := range word {
			word[j] = vals[code>>(2*j)&3]
		}
		b := append(bytes.Repeat([]byte{0x61}, code%41), word[:]...)
		for _, escaped := range []bool{false, true} {
			n, _ := escapeVector(out, b, escaped)
			if want := escapeWant(b, escaped); !bytes.Equal(out[:n], want) {
				t.Fatalf("escapeVector(%x, escaped %v) = %x; want %x", b, escaped, out[:n], want)
			}
		}
	}
}
