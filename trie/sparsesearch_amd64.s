#include "textflag.h"

// func searchIncreasing(seg []byte, n, b int) int
//
// searchSparse(seg[2:2+n], b) for 0 <= n <= 32 and 0 <= b <= 255, when
// len(seg) >= 35 and seg[2:2+n] strictly increases, else notIncreasing
// (1<<30), with SSE2 and no branch on the bytes (see sparsesearch.go).
// x -sat y, the unsigned subtraction that stops at 0, is 0 exactly where
// x <= y.
TEXT ·searchIncreasing(SB), NOSPLIT|NOFRAME, $0-48
	MOVQ seg_base+0(FP), SI
	MOVQ seg_len+8(FP), R8
	MOVQ n+24(FP), CX
	MOVQ b+32(FP), DX
	CMPQ CX, $32
	JHI notincreasing            // n > 32 (unsigned: n is a count)
	CMPQ DX, $255
	JHI notincreasing            // b is eos (unsigned: -1 is above)
	CMPQ R8, $35
	JLT notincreasing            // the 33 bytes from seg[2] do not lie in seg
	ADDQ $2, SI                  // SI: t, the transitions
	MOVQ DX, X6
	PUNPCKLBW X6, X6
	PUNPCKLWL X6, X6
	PSHUFD $0, X6, X6            // X6: b in every lane
	PXOR X5, X5
	MOVOU (SI), X0               // t[0:16]
	MOVOU 16(SI), X1             // t[16:32]
	MOVOU 1(SI), X2              // t[1:17]
	MOVOU 17(SI), X3             // t[17:33]
	PSUBUSB X0, X2
	PSUBUSB X1, X3
	PCMPEQB X5, X2               // lane i: t[i+1] <= t[i]
	PCMPEQB X5, X3
	MOVOU X6, X4
	PSUBUSB X0, X4
	PSUBUSB X1, X6
	PCMPEQB X5, X4               // lane i: b <= t[i]
	PCMPEQB X5, X6
	PMOVMSKB X2, R8
	PMOVMSKB X3, R9
	SHLQ $16, R9
	ORQ R9, R8                   // R8: bit i set when t[i+1] <= t[i]
	MOVQ $1, R10
	SHLQ CX, R10
	DECQ R10                     // R10: the n lanes of t[:n]
	MOVQ R10, R11
	SHRQ $1, R11                 // R11: the n-1 pairs in t[:n]
	TESTQ R11, R8
	JNE notincreasing
	PMOVMSKB X4, AX
	PMOVMSKB X6, BX
	SHLQ $16, BX
	ORQ BX, AX                   // AX: bit i set when t[i] >= b
	NOTQ R10
	ORQ R10, AX                  // and every lane from n up: nonzero
	BSFQ AX, AX                  // lo: the transitions below b are t[:lo]
	MOVBQZX (SI)(AX*1), R8       // t[lo]; lo <= 32 lies in t
	MOVQ AX, R11
	MOVQ AX, R9
	NOTQ R9                      // -lo-1
	CMPQ R8, DX
	CMOVQNE R9, AX               // t[lo] is not b
	CMPQ R11, CX
	CMOVQGE R9, AX               // lo is past the transitions
	MOVQ AX, ret+40(FP)
	RET
notincreasing:
	MOVQ $0x40000000, AX
	MOVQ AX, ret+40(FP)
	RET
