#include "textflag.h"

// func touchAround(f []byte, c int64) byte
//
// PREFETCHT0 of f[c-128], f[c-64] and f[c+32] when 128 <= c and
// c < len(f)-32 (which no c wraps; see touch_amd64.go); returns 0.
TEXT ·touchAround(SB), NOSPLIT|NOFRAME, $0-33
	MOVQ f_base+0(FP), AX
	MOVQ f_len+8(FP), BX
	MOVQ c+24(FP), CX
	CMPQ CX, $128
	JLT done
	SUBQ $32, BX
	CMPQ CX, BX
	JGE done
	LEAQ (AX)(CX*1), AX
	PREFETCHT0 -128(AX)
	PREFETCHT0 -64(AX)
	PREFETCHT0 32(AX)
done:
	MOVB $0, ret+32(FP)
	RET
