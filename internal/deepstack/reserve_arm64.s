#include "textflag.h"

// Not NOSPLIT: the assembler gives each function the stack check of its
// frame size, so the runtime grows the stack before the body runs. The body
// only returns: no page of the frame is written.

// func reserve32()
TEXT ·reserve32(SB), 0, $32768-0
	RET

// func Reserve()
TEXT ·Reserve(SB), 0, $65536-0
	RET
