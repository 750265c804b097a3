package bytecomparable

import "testing"

// TestValueOKAgreesWithCheckValue: the fast check AppendClustering makes
// before it calls CheckValue never accepts what CheckValue refuses, for
// every type (and one past the last) and every value length up to 17,
// timeuuids of every version.
func TestValueOKAgreesWithCheckValue(t *testing.T) {
	accepted := 0
	for ty := CQLType(0); ty <= TimeUUID+1; ty++ {
		for n := range 18 {
			for version := range 16 {
				v := make([]byte, n)
				if n > 6 {
					v[6] = byte(version << 4)
				}
				if valueOK(ty, v) {
					accepted++
					if err := CheckValue(Column{Type: ty}, 0, v); err != nil {
						t.Errorf("type %v, %d bytes, version %d: valueOK accepts what CheckValue refuses: %v", ty, n, version, err)
					}
				}
			}
		}
	}
	if accepted == 0 {
		t.Fatal("valueOK accepted nothing")
	}
}
