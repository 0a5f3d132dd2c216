#include "textflag.h"

#define SYS_madvise 233
#define MADV_POPULATE_WRITE 23

// func populate(addr, n uintptr) int
TEXT ·populate(SB), NOSPLIT, $0-24
	MOVD addr+0(FP), R0
	MOVD n+8(FP), R1
	MOVD $MADV_POPULATE_WRITE, R2
	MOVD $SYS_madvise, R8
	SVC
	MOVD R0, ret+16(FP)
	RET
