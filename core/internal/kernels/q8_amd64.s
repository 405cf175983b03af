//go:build amd64 && !purego

#include "textflag.h"

// Q8GROUP adds the four products of quants off..off+3 (int8, of the block
// at SI) and x's values at byte offset 4·off (of the block's x at DX) to
// the lane sums in X0, through X1 and X2: the four bytes loaded into lane
// 0, each byte spread over its own lane's top byte (PUNPCKLBW, PUNPCKLWL),
// shifted down with its sign (PSRAL), converted exactly (CVTPL2PS), then
// multiplied (rounded) and added.
#define Q8GROUP(off) \
	MOVSS     off(SI), X1       \
	PUNPCKLBW X1, X1            \
	PUNPCKLWL X1, X1            \
	PSRAL     $24, X1           \
	CVTPL2PS  X1, X1            \
	MOVUPS    (off*4)(DX), X2   \
	MULPS     X2, X1            \
	ADDPS     X1, X0

// func q8RowsSSE2(dst *float32, blocks *byte, x *float32, rows, nb int, half *float32)
//
// dst[i] = row i of nb Q8_0 blocks (34 bytes: fp16 d, 32 int8 quants)
// times x, MatVecQ8_0's order bit for bit: s from +0; per block, lane sums
// a_l += q[4k+l]·x[4k+l] for k = 0..7 in one XMM register, then
// s += d·((a0+a1) + (a2+a3)), d read from half, the 65,536 fp16 values
// widened (f16's, so the same bits as the other paths).
TEXT ·q8RowsSSE2(SB), NOSPLIT, $0-48
	MOVQ  rows+24(FP), CX
	TESTQ CX, CX
	JEQ   done
	MOVQ  dst+0(FP), DI
	MOVQ  blocks+8(FP), SI
	MOVQ  half+40(FP), R9
	MOVQ  nb+32(FP), R8

row:
	CMPQ  CX, $0
	JEQ   done
	MOVQ  x+16(FP), DX
	XORPS X3, X3               // s
	MOVQ  R8, R10              // blocks left in the row

block:
	CMPQ   R10, $0
	JEQ    store
	MOVWQZX (SI), AX            // the block's fp16 d
	MOVSS  (R9)(AX*4), X4
	ADDQ   $2, SI
	XORPS  X0, X0
	Q8GROUP(0)
	Q8GROUP(4)
	Q8GROUP(8)
	Q8GROUP(12)
	Q8GROUP(16)
	Q8GROUP(20)
	Q8GROUP(24)
	Q8GROUP(28)
	// (a0+a1) + (a2+a3): lanes swapped in pairs and added gives a0+a1 in
	// lane 0 and a2+a3 in lane 2 (IEEE addition commutes exactly).
	PSHUFD $0xB1, X0, X1
	ADDPS  X1, X0
	MOVHLPS X0, X1
	ADDSS  X1, X0
	MULSS  X4, X0
	ADDSS  X0, X3
	ADDQ   $32, SI
	ADDQ   $128, DX
	DECQ   R10
	JMP    block

store:
	MOVSS X3, (DI)
	ADDQ  $4, DI
	DECQ  CX
	JMP   row

done:
	RET
