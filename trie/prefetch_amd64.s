#include "textflag.h"

// func prefetchOffsets(b []byte, offs []int64) byte
//
// PREFETCHT0 of &b[o] for every o in offs (the caller keeps each o inside
// b): a batch of prefetches for the price of one call.
TEXT ·prefetchOffsets(SB), NOSPLIT|NOFRAME, $0-49
	MOVQ b_base+0(FP), AX
	MOVQ offs_base+24(FP), BX
	MOVQ offs_len+32(FP), CX
	TESTQ CX, CX
	JEQ done
loop:
	MOVQ (BX), DX
	PREFETCHT0 (AX)(DX*1)
	ADDQ $8, BX
	DECQ CX
	JNE loop
done:
	MOVB $0, ret+48(FP)
	RET
