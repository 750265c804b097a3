#include "textflag.h"

// func escapeVector(out, b []byte, escaped bool) (n int, escapedOut bool)
//
// 32 input bytes at a time (a chunk), in 256-bit registers with AVX-512's
// masks: 512-bit registers (one chunk's output in one register) can lower
// a core's clock, and a first version with them took about twice as long
// on one chunk of 16 or 32 bytes (a throwaway go test -bench, on the
// working tree before a510647, a Xeon Ice Lake server VM: family 6 model
// 106). A chunk's output, up to 48 bytes, is expanded and stored as two
// halves of up to 24 bytes, each a 32-byte store: the second goes where
// the first one's output ends, over the first's padding, and its own
// padding is the at most 32 bytes written past the output
// (escapeVectorRoom).
//
// Registers: DI the next output byte, SI the next input byte, CX the input
// bytes left, BX the chunk's (min(CX, 32)), DX the state (1: the byte
// before was a zero), R8 out's start; Y2 all FF, Y3 all FE; R9 and R10 the
// alternating masks 0101... and 1010....
TEXT ·escapeVector(SB), NOSPLIT, $0-65
	MOVQ	out_base+0(FP), DI
	MOVQ	b_base+24(FP), SI
	MOVQ	b_len+32(FP), CX
	MOVBQZX	escaped+48(FP), DX
	MOVQ	DI, R8
	VPCMPEQB	Y2, Y2, Y2
	MOVL	$0xfe, AX
	VPBROADCASTB	AX, Y3
	MOVL	$0x55555555, R9
	MOVL	$0xaaaaaaaa, R10

chunk:
	TESTQ	CX, CX
	JZ	done
	MOVQ	$32, BX
	CMPQ	CX, BX
	CMOVQLT	CX, BX

	// The chunk's bytes, zero past its end (a masked load does not fault
	// on the bytes it leaves out), and the mask of its zeros (R12).
	MOVL	$-1, R11
	BZHIL	BX, R11, R11	// R11: the chunk's bytes (BZHI keeps all 32 for 32)
	KMOVD	R11, K1
	VMOVDQU8.Z	(SI), K1, Y0
	VPTESTNMB	Y0, Y0, K1, K2
	KMOVD	K2, R12

	// after (R13): the bytes that follow a zero, the state carried in as
	// bit 0. The zeros among them continue a run and become FE.
	LEAL	(R12)(R12*1), R13
	ORL	DX, R13
	MOVL	R12, R14
	ANDL	R13, R14
	KMOVD	R14, K3
	VMOVDQU8	Y3, K3, Y0

	// ends (R15): the non-zero bytes after a zero, within the chunk. The
	// state out is whether the chunk's last byte is a zero.
	ANDNL	R13, R12, R15
	ANDL	R11, R15
	LEAL	-1(BX), AX
	SHRXL	AX, R12, DX
	ANDL	$1, DX

	// Each half's output mask: for its input byte i, bit 2i is set if an
	// FF goes before the byte and bit 2i+1 stands for the byte; PEXT of
	// 1010... under that keeps a 0 for each FF and a 1 for each byte, in
	// output order. VPEXPANDB puts the half's bytes under the ones, FF
	// (Y2's) under the zeros.
	MOVWLZX	R15, AX	// the first half's ends
	PDEPL	R9, AX, R11
	ORL	R10, R11
	PEXTL	R11, R10, R11
	KMOVD	R11, K4
	VMOVDQU	Y2, Y1
	VPEXPANDB	Y0, K4, Y1
	VMOVDQU	Y1, (DI)

	MOVL	R15, R11
	SHRL	$16, R11	// the second half's ends
	PDEPL	R9, R11, R12
	ORL	R10, R12
	PEXTL	R12, R10, R12
	KMOVD	R12, K5
	VEXTRACTI128	$1, Y0, X4
	VMOVDQU	Y2, Y5
	VPEXPANDB	Y4, K5, Y5
	// The first half's output: min(BX, 16) bytes and an FF per end.
	POPCNTL	AX, AX
	MOVQ	$16, R13
	CMPQ	BX, R13
	CMOVQLT	BX, R13
	ADDQ	AX, R13
	VMOVDQU	Y5, (DI)(R13*1)

	POPCNTL	R15, AX
	ADDQ	BX, AX	// the chunk's output: its bytes and an FF per end
	ADDQ	AX, DI
	ADDQ	BX, SI
	SUBQ	BX, CX
	JMP	chunk

done:
	SUBQ	R8, DI
	MOVQ	DI, n+56(FP)
	MOVB	DX, escapedOut+64(FP)
	VZEROUPPER
	RET
