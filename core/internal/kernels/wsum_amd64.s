//go:build amd64 && !purego

#include "textflag.h"

// WSUM4 adds att[t]·vals[t·stride + off/4 ..][:4] (the splat weight in w)
// to acc, through t.
#define WSUM4(off, w, t, acc) \
	MOVUPS off(DX), t \
	MULPS  w, t       \
	ADDPS  t, acc

// func wsumSSE2(out, att, vals *float32, count, n, stride int)
//
// out[i] = Σ_t att[t]·vals[t·stride + i] for i below n, each sum from +0
// in increasing t with every product rounded by MULPS before ADDPS adds
// it (weightedSumGo's order, bit for bit): sixteen outputs at a time in
// X0..X3, then four in X0, then one. count ≥ 1.
TEXT ·wsumSSE2(SB), NOSPLIT, $0-48
	MOVQ out+0(FP), DI
	MOVQ att+8(FP), SI
	MOVQ vals+16(FP), BX
	MOVQ stride+40(FP), R9
	SHLQ $2, R9              // stride in bytes
	MOVQ count+24(FP), CX
	MOVQ n+32(FP), R8

w16:
	CMPQ  R8, $16
	JLT   w4
	XORPS X0, X0
	XORPS X1, X1
	XORPS X2, X2
	XORPS X3, X3
	MOVQ  BX, DX             // vals row t, column chunk
	XORQ  R12, R12           // t

w16t:
	MOVSS  (SI)(R12*4), X4
	SHUFPS $0x00, X4, X4
	WSUM4(0, X4, X5, X0)
	WSUM4(16, X4, X6, X1)
	WSUM4(32, X4, X7, X2)
	WSUM4(48, X4, X8, X3)
	ADDQ   R9, DX
	INCQ   R12
	CMPQ   R12, CX
	JLT    w16t
	MOVUPS X0, (DI)
	MOVUPS X1, 16(DI)
	MOVUPS X2, 32(DI)
	MOVUPS X3, 48(DI)
	ADDQ   $64, DI
	ADDQ   $64, BX
	SUBQ   $16, R8
	JMP    w16

w4:
	CMPQ  R8, $4
	JLT   w1
	XORPS X0, X0
	MOVQ  BX, DX
	XORQ  R12, R12

w4t:
	MOVSS  (SI)(R12*4), X4
	SHUFPS $0x00, X4, X4
	WSUM4(0, X4, X5, X0)
	ADDQ   R9, DX
	INCQ   R12
	CMPQ   R12, CX
	JLT    w4t
	MOVUPS X0, (DI)
	ADDQ   $16, DI
	ADDQ   $16, BX
	SUBQ   $4, R8
	JMP    w4

w1:
	CMPQ  R8, $0
	JEQ   done
	XORPS X0, X0
	MOVQ  BX, DX
	XORQ  R12, R12

w1t:
	MOVSS (SI)(R12*4), X4
	MULSS (DX), X4
	ADDSS X4, X0
	ADDQ  R9, DX
	INCQ  R12
	CMPQ  R12, CX
	JLT   w1t
	MOVSS X0, (DI)
	ADDQ  $4, DI
	ADDQ  $4, BX
	DECQ  R8
	JMP   w1

done:
	RET
