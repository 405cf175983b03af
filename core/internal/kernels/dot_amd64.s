//go:build amd64 && !purego

#include "textflag.h"

// dotsSSE2 is dotsGo in SSE2 (dot_amd64.go): DotF32's row order with the
// eight lanes of a row in two XMM sums, lanes 0..3 in lo and 4..7 in hi.
// Every product is rounded by MULPS (or MULSS) before ADDPS (or ADDSS)
// adds it: two instructions, never a fused multiply-add. Loads are
// unaligned (MOVUPS, MOVSS): SSE arithmetic never takes a 16-byte memory
// operand here, which would demand alignment.

// REDUCE leaves s = ((a0+a4) + (a2+a6)) + ((a1+a5) + (a3+a7)) in lane 0
// of lo, from lo = (a0, a1, a2, a3) and hi = (a4, a5, a6, a7), t being
// scratch: b = (a0+a4, a1+a5, a2+a6, a3+a7) by ADDPS, (b0+b2, b1+b3) by
// MOVHLPS and ADDPS, lane 1 moved to lane 0 by SHUFPS, then one ADDSS.
// Lanes 1..3 of lo end as garbage.
#define REDUCE(lo, hi, t) \
	ADDPS   hi, lo      \
	MOVHLPS lo, t       \
	ADDPS   t, lo       \
	MOVAPS  lo, t       \
	SHUFPS  $0x55, t, t \
	ADDSS   t, lo

// PROD4 adds the four products of row r's values at byte offset off from
// column R12 and x4 to acc, through t.
#define PROD4(r, off, x4, t, acc) \
	MOVUPS off(r)(R12*4), t \
	MULPS  x4, t           \
	ADDPS  t, acc

// PASS runs the rows in hand over the n columns (R8): zero clears their
// sums; from j = 0 (R12), per whole chunk of eight (R10 columns), x's
// eight values in X0 and X1, then chunk8; if n mod 8 ≥ 4, the next four
// in X0, then chunk4; then reduce; then per remaining column, x's value
// in X0, then tail. The labels name the pass's loops and jumps.
#define PASS(zero, chunk8, chunk4, reduce, tail, l8, l4, lr, lt, ls) \
	zero                        \
	XORQ   R12, R12             \
	CMPQ   R10, $0              \
	JEQ    l4                   \
l8:                                 \
	MOVUPS (SI)(R12*4), X0      \
	MOVUPS 16(SI)(R12*4), X1    \
	chunk8                      \
	ADDQ   $8, R12              \
	CMPQ   R12, R10             \
	JLT    l8                   \
l4:                                 \
	TESTQ  $4, R8               \
	JEQ    lr                   \
	MOVUPS (SI)(R12*4), X0      \
	chunk4                      \
	ADDQ   $4, R12              \
lr:                                 \
	reduce                      \
lt:                                 \
	CMPQ   R12, R8              \
	JGE    ls                   \
	MOVSS  (SI)(R12*4), X0      \
	tail                        \
	INCQ   R12                  \
	JMP    lt                   \
ls:

// TAIL1 adds row r's product at column R12 (x's value in X0) to lane 0
// of acc, through t.
#define TAIL1(r, t, acc) \
	MOVSS (r)(R12*4), t \
	MULSS X0, t         \
	ADDSS t, acc

// The steps of a pass over four rows (DX, AX, BX, R11: lo and hi sums in
// X2 and X3, X4 and X5, X6 and X7, X8 and X9) and over one (DX: X2, X3).
#define FOURZERO \
	XORPS X2, X2 \
	XORPS X3, X3 \
	XORPS X4, X4 \
	XORPS X5, X5 \
	XORPS X6, X6 \
	XORPS X7, X7 \
	XORPS X8, X8 \
	XORPS X9, X9
#define FOUR8 \
	PROD4(DX, 0, X0, X10, X2)   \
	PROD4(DX, 16, X1, X11, X3)  \
	PROD4(AX, 0, X0, X12, X4)   \
	PROD4(AX, 16, X1, X13, X5)  \
	PROD4(BX, 0, X0, X14, X6)   \
	PROD4(BX, 16, X1, X15, X7)  \
	PROD4(R11, 0, X0, X10, X8)  \
	PROD4(R11, 16, X1, X11, X9)
#define FOUR4 \
	PROD4(DX, 0, X0, X10, X2)   \
	PROD4(AX, 0, X0, X11, X4)   \
	PROD4(BX, 0, X0, X12, X6)   \
	PROD4(R11, 0, X0, X13, X8)
#define FOURREDUCE \
	REDUCE(X2, X3, X10)         \
	REDUCE(X4, X5, X11)         \
	REDUCE(X6, X7, X12)         \
	REDUCE(X8, X9, X13)
#define FOURTAIL \
	TAIL1(DX, X10, X2)          \
	TAIL1(AX, X11, X4)          \
	TAIL1(BX, X12, X6)          \
	TAIL1(R11, X13, X8)
#define ONEZERO \
	XORPS X2, X2 \
	XORPS X3, X3
#define ONE8 \
	PROD4(DX, 0, X0, X10, X2)   \
	PROD4(DX, 16, X1, X11, X3)
#define ONE4 PROD4(DX, 0, X0, X10, X2)
#define ONEREDUCE REDUCE(X2, X3, X10)
#define ONETAIL TAIL1(DX, X10, X2)

// func dotsSSE2(dst, x, rows *float32, count, n, stride int)
//
// dst[t] = dotGo(rows[t·stride:][:n], x[:n]) for t below count: four rows
// at a time, sharing each load of x, eight sums in X2..X9; the last
// count mod 4 rows one at a time in X2, X3.
TEXT ·dotsSSE2(SB), NOSPLIT, $0-48
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ rows+16(FP), DX
	MOVQ count+24(FP), CX
	MOVQ n+32(FP), R8
	MOVQ stride+40(FP), R9
	SHLQ $2, R9              // stride in bytes
	MOVQ R8, R10
	ANDQ $-8, R10            // columns in whole chunks of eight

	CMPQ CX, $4
	JLT  one

four:
	LEAQ  (DX)(R9*1), AX     // rows 1, 2, 3
	LEAQ  (DX)(R9*2), BX
	LEAQ  (AX)(R9*2), R11
	PASS(FOURZERO, FOUR8, FOUR4, FOURREDUCE, FOURTAIL, four8, four4, fourreduce, fourtail, fourstore)
	MOVSS X2, (DI)
	MOVSS X4, 4(DI)
	MOVSS X6, 8(DI)
	MOVSS X8, 12(DI)
	ADDQ  $16, DI
	LEAQ  (DX)(R9*4), DX
	SUBQ  $4, CX
	CMPQ  CX, $4
	JGE   four

one:
	CMPQ  CX, $0
	JEQ   done
	PASS(ONEZERO, ONE8, ONE4, ONEREDUCE, ONETAIL, one8, one4, onereduce, onetail, onestore)
	MOVSS X2, (DI)
	ADDQ  $4, DI
	ADDQ  R9, DX
	DECQ  CX
	JMP   one

done:
	RET
