//go:build !amd64

package bytecomparable

// haveEscapeVector is false where there is no assembly for escapeVector:
// escapeFrom escapes word by word.
var haveEscapeVector = false

// escapeVector is escapeFrom(out, 0, b, 0, escaped), which here always
// takes the word loop (see the amd64 version; only tests call it here).
func escapeVector(out, b []byte, escaped bool) (int, bool) {
	return escapeFrom(out, 0, b, 0, escaped)
}
