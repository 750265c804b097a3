#include "textflag.h"

// func prefetch(p *byte) byte
//
// PREFETCHT0 asks for p's cache line and retires at once: unlike a load, it
// does not hold up the instructions after it until the line arrives.
TEXT ·prefetch(SB), NOSPLIT|NOFRAME, $0-9
	MOVQ p+0(FP), AX
	PREFETCHT0 (AX)
	MOVB $0, ret+8(FP)
	RET
