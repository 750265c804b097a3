package bytecomparable

import (
	"bytes"
	"testing"

	"golang.org/x/sys/unix"
)

// escapeVector reads no byte past its input: inputs of 0 to 40 bytes that
// end where a readable page meets one that is not (a key at the end of a
// mapping) escape without a fault, through the masked loads on amd64.
func TestEscapeVectorPageEnd(t *testing.T) {
	page := unix.Getpagesize()
	m, err := unix.Mmap(-1, 0, 2*page, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_ANON|unix.MAP_PRIVATE)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Munmap(m)
	if err := unix.Mprotect(m[page:], unix.PROT_NONE); err != nil {
		t.Fatal(err)
	}
	out := make([]byte, escapeVectorRoom(40))
	for n := 0; n <= 40; n++ {
		b := m[page-n : page]
		for i := range b {
			b[i] = []byte{0, 0x31, 0, 0, 0xFF}[i%5]
		}
		for _, escaped := range []bool{false, true} {
			got, _ := escapeVector(out, b, escaped)
			if want := escapeWant(b, escaped); !bytes.Equal(out[:got], want) {
				t.Fatalf("escapeVector(%x, escaped %v) = %x; want %x", b, escaped, out[:got], want)
			}
		}
	}
}
