package bytecomparable

import "golang.org/x/sys/cpu"

// haveEscapeVector says escapeVector's instructions are there: AVX-512
// (F, BW, VBMI2 for VPEXPANDB; the OS saves its registers, which x/sys/cpu
// checks) and BMI2, POPCNT. Ice Lake and later Intel cores, AMD Zen 4 and
// later: cores whose PDEP and PEXT are fast (on Zen 1 and 2, which have no
// AVX-512, they are microcoded). Tests turn it off to run the word loop.
var haveEscapeVector = cpu.X86.HasAVX512F && cpu.X86.HasAVX512BW && cpu.X86.HasAVX512VBMI2 &&
	cpu.X86.HasBMI2 && cpu.X86.HasPOPCNT

// escapeVector writes the escaped form of b, without the end marker, at
// the start of out, continuing from the escaper state escaped, and returns
// its length and the new state, as escapeFrom(out, 0, b, 0, escaped) does.
// It escapes 32 input bytes at a time, in assembly (escapevector_amd64.s):
// a masked load (it reads no byte past b: TestEscapeVectorPageEnd), the
// zeros' mask, FE into the zeros that continue a run, and the FF before
// each byte that ends one put in by VPEXPANDB, which spreads bytes out
// under a mask, FF wherever the mask has a zero. That mask is the input's
// with a zero bit inserted before each run end: PEXT of the alternating
// bits 1010... under the mask that, for input byte i, has bit 2i+1 set and
// bit 2i set if byte i ends a run (PDEP spreads the ends to the even
// bits). No branch depends on the bytes, and a key of up to 32 bytes takes
// no loop, so no mispredicted exit as the word loop's varying trip count
// has.
//
// Its stores are whole registers, up to 32 bytes past the output: out must
// have escapeVectorRoom(len(b)) bytes (escapeFrom checks).
//
//go:noescape
func escapeVector(out, b []byte, escaped bool) (n int, escapedOut bool)
