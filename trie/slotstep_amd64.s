#include "textflag.h"

// The two slot steps' common parts. Registers: SI the slot, DI and R8 the
// file's base and length, AX pos, DX the key byte b.
//
// PREFETCH_LEAVES: PREFETCHT0 of f[pos-128], f[pos-64] and f[pos-1] when
// 128 <= pos <= len(f), else on to the label search, which follows it.
#define PREFETCH_LEAVES \
	CMPQ AX, $128; \
	JLT search; \
	CMPQ AX, R8; \
	JGT search; \
	LEAQ (DI)(AX*1), R9; \
	PREFETCHT0 -128(R9); \
	PREFETCHT0 -64(R9); \
	PREFETCHT0 -1(R9)

// LOWEST_NOT_BELOW: R10 gets a mask with bit i set where transition t[i]
// >= b (b -sat t is 0 exactly there), for the 32 lanes; the pads make it
// nonzero. Uses X0-X4 and R11.
#define LOWEST_NOT_BELOW \
	MOVQ DX, X2; \
	PUNPCKLBW X2, X2; \
	PUNPCKLWL X2, X2; \
	PSHUFD $0, X2, X2; \
	MOVOU X2, X3; \
	MOVOU 1(SI), X0; \
	MOVOU 17(SI), X1; \
	PSUBUSB X0, X2; \
	PSUBUSB X1, X3; \
	PXOR X4, X4; \
	PCMPEQB X4, X2; \
	PCMPEQB X4, X3; \
	PMOVMSKB X2, R10; \
	PMOVMSKB X3, R11; \
	SHLQ $16, R11; \
	ORQ R11, R10

// func slotStepFile(s *jumpSlot, f []byte, pos int64, b int, touch *byte) int64
//
// slotStep(s, pos, b) after PREFETCHT0 of f[pos-128], f[pos-64] and
// f[pos-1] when 128 <= pos <= len(f) (see slotstep_amd64.go). The slot:
// [0] n+1, [1:33] the n increasing transitions then 0xFF pads, [33:63]
// the n one-byte pointers; n <= 30, so lanes 30 and 31 are pads and some
// lane is never below b. touch is not used (see slotstep_amd64.go).
TEXT ·slotStepFile(SB), NOSPLIT|NOFRAME, $0-64
	MOVQ s+0(FP), SI
	MOVQ f_base+8(FP), DI
	MOVQ f_len+16(FP), R8
	MOVQ pos+32(FP), AX
	MOVQ b+40(FP), DX
	PREFETCH_LEAVES
search:
	LOWEST_NOT_BELOW
	BSFQ R10, R10                // lo: the first transition not below b
	MOVBQZX 1(SI)(R10*1), R11    // t[lo]
	CMPQ R11, DX
	JNE none
	MOVBQZX (SI), R11
	DECQ R11                     // n
	CMPQ R10, R11
	JGE none                     // a pad
	MOVBQZX 33(SI)(R10*1), R11   // the child's distance back
	TESTQ R11, R11
	JEQ irregular
	CMPQ R11, AX
	JGT irregular
	SUBQ R11, AX
irregular:
	MOVQ AX, ret+56(FP)         // pos - d, or pos itself for a bad pointer
	RET
none:
	MOVQ $-1, ret+56(FP)
	RET

// func ceilingSlotStepFile(s *jumpSlot, f []byte, pos, greater int64, b int, touch *byte) (next, gr int64)
//
// ceilingSlotStep(s, pos, greater, b) after slotStepFile's prefetch (see
// slotstep_amd64.go). lo, the first transition not below b, is found as in
// slotStepFile; b's slot is lo when t[lo] == b and lo < n, and the slot
// above b is then lo+1, else lo.
TEXT ·ceilingSlotStepFile(SB), NOSPLIT|NOFRAME, $0-80
	MOVQ s+0(FP), SI
	MOVQ f_base+8(FP), DI
	MOVQ f_len+16(FP), R8
	MOVQ pos+32(FP), AX
	MOVQ greater+40(FP), BX
	MOVQ b+48(FP), DX
	PREFETCH_LEAVES
search:
	LOWEST_NOT_BELOW
	BSFQ R10, R10                // lo
	MOVBQZX (SI), CX
	DECQ CX                      // n
	MOVQ R10, R12                // above: lo while b has no slot
	XORQ R13, R13                // R13: 1 when b has a slot (lo)
	CMPQ R10, CX
	JGE above
	MOVBQZX 1(SI)(R10*1), R11    // t[lo]
	CMPQ R11, DX
	JNE above
	INCQ R12                     // above: lo+1
	MOVQ $1, R13
above:
	CMPQ R12, CX
	JGE own                      // no slot above b: greater stays
	MOVBQZX 33(SI)(R12*1), R11   // the distance back to the child above b
	TESTQ R11, R11
	JEQ irregular
	CMPQ R11, AX
	JGT irregular
	MOVQ AX, BX
	SUBQ R11, BX                 // greater: that child
own:
	TESTQ R13, R13
	JEQ none
	MOVBQZX 33(SI)(R10*1), R11   // the distance back to b's child
	TESTQ R11, R11
	JEQ irregular
	CMPQ R11, AX
	JGT irregular
	SUBQ R11, AX
irregular:
	MOVQ AX, next+64(FP)         // b's child, or pos itself for a bad pointer
	MOVQ BX, gr+72(FP)
	RET
none:
	MOVQ $-1, next+64(FP)
	MOVQ BX, gr+72(FP)
	RET
