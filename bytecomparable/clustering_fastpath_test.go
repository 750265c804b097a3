package bytecomparable

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// TestAppendClusteringFastPaths ties AppendClustering's inlined cases
// (bigint, uuid and int values in whole words, DESC XORed in) to its
// general case, appendComponent (CheckValue, then AppendValue and the
// inversion byte by byte): for every type (and one past the last), every
// value length up to 17, every version nibble, both orders and several
// random fillings, a one-component prefix is refused by both or encoded
// to the same bytes, after a non-empty dst prefix.
func TestAppendClusteringFastPaths(t *testing.T) {
	rng := rand.New(rand.NewPCG(22, 5000))
	prefix := []byte("prefix")
	encoded := 0
	for ty := CQLType(0); ty <= TimeUUID+1; ty++ {
		for _, desc := range []bool{false, true} {
			col := Column{Type: ty, Desc: desc}
			for n := range 18 {
				for version := range 16 {
					for fill := range 4 {
						v := make([]byte, n)
						for i := range v {
							switch fill {
							case 1:
								v[i] = 0xFF
							case 2, 3:
								v[i] = byte(rng.Uint32())
							}
						}
						if n > 6 {
							v[6] = v[6]&0x0F | byte(version<<4)
						}
						got, gotErr := AppendClustering(bytes.Clone(prefix), []Column{col}, [][]byte{v}, ExclusiveStart)
						want, wantErr := appendComponent(bytes.Clone(prefix), col, 0, v)
						if (gotErr == nil) != (wantErr == nil) {
							t.Fatalf("%v desc=%v value %x: AppendClustering error %v, appendComponent error %v", ty, desc, v, gotErr, wantErr)
						}
						if gotErr != nil {
							if gotErr.Error() != wantErr.Error() {
								t.Errorf("%v desc=%v value %x: error %q, want %q", ty, desc, v, gotErr, wantErr)
							}
							if !bytes.Equal(got, prefix) {
								t.Errorf("%v desc=%v value %x: refused, but dst is %x, want %x", ty, desc, v, got, prefix)
							}
							continue
						}
						encoded++
						want = append(want, ExclusiveStart.Terminator())
						if !bytes.Equal(got, want) {
							t.Errorf("%v desc=%v value %x: AppendClustering %x, appendComponent %x", ty, desc, v, got, want)
						}
					}
				}
			}
		}
	}
	if encoded == 0 {
		t.Fatal("nothing was encoded")
	}
}
