#include "textflag.h"

#define SYS_madvise 28
#define MADV_POPULATE_WRITE 23

// func populate(addr, n uintptr) int
TEXT ·populate(SB), NOSPLIT, $0-24
	MOVQ addr+0(FP), DI
	MOVQ n+8(FP), SI
	MOVQ $MADV_POPULATE_WRITE, DX
	MOVQ $SYS_madvise, AX
	SYSCALL
	MOVQ AX, ret+16(FP)
	RET
