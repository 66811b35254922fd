#include "textflag.h"

// CMUL sets b to b·w for two complex numbers b (interleaved real,
// imaginary) and the twiddle w broadcast as wr, wi: b·wr, then the
// swapped b times wi, subtracted from the real parts and added to the
// imaginary ones. The products are rounded before the sums, as Go's
// complex multiplication rounds them on amd64, so the results are the
// same bits as radix4's scalar loop. Y8 is scratch.
#define CMUL(b, wr, wi) \
	VMULPD    wr, b, Y8; \
	VPERMILPD $5, b, b; \
	VMULPD    wi, b, b; \
	VADDSUBPD b, Y8, b

// BUTTERFLY loads u0…u3 at byte offset BX, forms t0 = u0+u2 (Y4),
// t1 = u0−u2 (Y5), t2 = u1+u3 (Y6), t3 = ±i(u1−u3) (Y7, the sign pattern
// in Y9), stores y0 = t0+t2 and leaves b1 = t1+t3 (Y1), b2 = t0−t2 (Y2),
// b3 = t1−t3 (Y3).
#define BUTTERFLY \
	VMOVUPD   (SI)(BX*1), Y0; \
	VMOVUPD   (R8)(BX*1), Y1; \
	VMOVUPD   (R9)(BX*1), Y2; \
	VMOVUPD   (R10)(BX*1), Y3; \
	VADDPD    Y2, Y0, Y4; \
	VSUBPD    Y2, Y0, Y5; \
	VADDPD    Y3, Y1, Y6; \
	VSUBPD    Y3, Y1, Y7; \
	VPERMILPD $5, Y7, Y7; \
	VMULPD    Y9, Y7, Y7; \
	VADDPD    Y6, Y4, Y0; \
	VMOVUPD   Y0, (DI)(BX*1); \
	VADDPD    Y7, Y5, Y1; \
	VSUBPD    Y6, Y4, Y2; \
	VSUBPD    Y7, Y5, Y3

// func radix4AVX(n int, a0, a1, a2, a3, y0, y1, y2, y3 *complex128, w *[11]float64)
//
// The radix-4 butterflies of n (even) terms: w holds the twiddles
// w1, w2, w3 (real, imaginary) and the pattern (−sg, sg, −sg, sg) of
// ±i; w[10] ≠ 0 marks twiddles of 1, whose products are skipped.
TEXT ·radix4AVX(SB), NOSPLIT, $0-80
	MOVQ n+0(FP), CX
	MOVQ a0+8(FP), SI
	MOVQ a1+16(FP), R8
	MOVQ a2+24(FP), R9
	MOVQ a3+32(FP), R10
	MOVQ y0+40(FP), DI
	MOVQ y1+48(FP), R11
	MOVQ y2+56(FP), R12
	MOVQ y3+64(FP), R13
	MOVQ w+72(FP), AX
	VBROADCASTSD 0(AX), Y10
	VBROADCASTSD 8(AX), Y11
	VBROADCASTSD 16(AX), Y12
	VBROADCASTSD 24(AX), Y13
	VBROADCASTSD 32(AX), Y14
	VBROADCASTSD 40(AX), Y15
	VMOVUPD      48(AX), Y9
	XORQ         BX, BX
	SHLQ         $4, CX // bytes
	MOVQ         80(AX), DX
	TESTQ        DX, DX
	JNZ          ones

twiddled:
	CMPQ BX, CX
	JGE  done
	BUTTERFLY
	CMUL(Y1, Y10, Y11)
	VMOVUPD Y1, (R11)(BX*1)
	CMUL(Y2, Y12, Y13)
	VMOVUPD Y2, (R12)(BX*1)
	CMUL(Y3, Y14, Y15)
	VMOVUPD Y3, (R13)(BX*1)
	ADDQ    $32, BX
	JMP     twiddled

ones:
	CMPQ BX, CX
	JGE  done
	BUTTERFLY
	VMOVUPD Y1, (R11)(BX*1)
	VMOVUPD Y2, (R12)(BX*1)
	VMOVUPD Y3, (R13)(BX*1)
	ADDQ    $32, BX
	JMP     ones

done:
	VZEROUPPER
	RET

// FIVE loads v0…v4 at byte offset BX (SI, R8, R9, R10, DX), stores
// y0 = (v0 + t1) + t2 (DI) and leaves y1 = b1+e1 (Y1), y2 = b2+e2 (Y4),
// y3 = b2−e2 (Y3), y4 = b1−e1 (Y2), untwiddled: t1 = v1+v4, t2 = v2+v3,
// t3 = v1−v4, t4 = v2−v3, b1 = (v0 + c1·t1) + c2·t2,
// b2 = (v0 + c2·t1) + c1·t2, e1 = ±i(s1·t3 + s2·t4),
// e2 = ±i(s2·t3 − s1·t4); c1, c2, s1, s2, the ± pattern in Y11–Y15. The
// operations and their order are radix5's.
#define FIVE \
	VMOVUPD   (SI)(BX*1), Y0; \
	VMOVUPD   (R8)(BX*1), Y1; \
	VMOVUPD   (R9)(BX*1), Y2; \
	VMOVUPD   (R10)(BX*1), Y3; \
	VMOVUPD   (DX)(BX*1), Y4; \
	VADDPD    Y4, Y1, Y5; \
	VSUBPD    Y4, Y1, Y7; \
	VADDPD    Y3, Y2, Y6; \
	VSUBPD    Y3, Y2, Y4; \
	VADDPD    Y5, Y0, Y1; \
	VADDPD    Y6, Y1, Y1; \
	VMOVUPD   Y1, (DI)(BX*1); \
	VMULPD    Y11, Y5, Y2; \
	VADDPD    Y2, Y0, Y2; \
	VMULPD    Y12, Y6, Y3; \
	VADDPD    Y3, Y2, Y2; \
	VMULPD    Y12, Y5, Y3; \
	VADDPD    Y3, Y0, Y3; \
	VMULPD    Y11, Y6, Y1; \
	VADDPD    Y1, Y3, Y3; \
	VMULPD    Y13, Y7, Y0; \
	VMULPD    Y14, Y4, Y1; \
	VADDPD    Y1, Y0, Y0; \
	VMULPD    Y14, Y7, Y5; \
	VMULPD    Y13, Y4, Y6; \
	VSUBPD    Y6, Y5, Y5; \
	VPERMILPD $5, Y0, Y0; \
	VMULPD    Y15, Y0, Y0; \
	VPERMILPD $5, Y5, Y5; \
	VMULPD    Y15, Y5, Y5; \
	VADDPD    Y0, Y2, Y1; \
	VSUBPD    Y0, Y2, Y2; \
	VADDPD    Y5, Y3, Y4; \
	VSUBPD    Y5, Y3, Y3

// TWIDDLE multiplies b by the twiddle at byte offset off of AX.
#define TWIDDLE(b, off) \
	VBROADCASTSD off(AX), Y9; \
	VBROADCASTSD off+8(AX), Y10; \
	CMUL(b, Y9, Y10)

// func radix5AVX(n int, a0, a1, a2, a3, a4, y0, y1, y2, y3, y4 *complex128, w *[17]float64)
//
// The radix-5 butterflies of n (even) terms: w holds the twiddles
// w1…w4 (real, imaginary), the pattern (−sg, sg, −sg, sg) of ±i, the
// constants c1, c2, s1, s2 and, in w[16] ≠ 0, the mark of twiddles of 1.
TEXT ·radix5AVX(SB), NOSPLIT, $0-96
	MOVQ n+0(FP), CX
	MOVQ a0+8(FP), SI
	MOVQ a1+16(FP), R8
	MOVQ a2+24(FP), R9
	MOVQ a3+32(FP), R10
	MOVQ a4+40(FP), DX
	MOVQ y0+48(FP), DI
	MOVQ y1+56(FP), R11
	MOVQ y2+64(FP), R12
	MOVQ y3+72(FP), R13
	MOVQ y4+80(FP), R14
	MOVQ w+88(FP), AX
	VMOVUPD      64(AX), Y15
	VBROADCASTSD 96(AX), Y11
	VBROADCASTSD 104(AX), Y12
	VBROADCASTSD 112(AX), Y13
	VBROADCASTSD 120(AX), Y14
	XORQ         BX, BX
	SHLQ         $4, CX
	MOVQ         128(AX), R15
	TESTQ        R15, R15
	JNZ          ones5

twiddled5:
	CMPQ BX, CX
	JGE  done5
	FIVE
	TWIDDLE(Y1, 0)
	VMOVUPD Y1, (R11)(BX*1)
	TWIDDLE(Y4, 16)
	VMOVUPD Y4, (R12)(BX*1)
	TWIDDLE(Y3, 32)
	VMOVUPD Y3, (R13)(BX*1)
	TWIDDLE(Y2, 48)
	VMOVUPD Y2, (R14)(BX*1)
	ADDQ    $32, BX
	JMP     twiddled5

ones5:
	CMPQ BX, CX
	JGE  done5
	FIVE
	VMOVUPD Y1, (R11)(BX*1)
	VMOVUPD Y4, (R12)(BX*1)
	VMOVUPD Y3, (R13)(BX*1)
	VMOVUPD Y2, (R14)(BX*1)
	ADDQ    $32, BX
	JMP     ones5

done5:
	VZEROUPPER
	RET

// THREE loads u0, u1, u2 at byte offset BX (SI, R8, R9), stores
// y0 = u0 + t (DI) and leaves b = m + e (Y1) and c = m − e (Y2),
// untwiddled: t = u1+u2, d = u1−u2, m = u0 − ½t, e = ±i·sin60·d (the
// pattern (−sn, sn, −sn, sn) in Y14, ½ in Y13): radix3's operations.
#define THREE \
	VMOVUPD   (SI)(BX*1), Y0; \
	VMOVUPD   (R8)(BX*1), Y1; \
	VMOVUPD   (R9)(BX*1), Y2; \
	VADDPD    Y2, Y1, Y3; \
	VSUBPD    Y2, Y1, Y4; \
	VMULPD    Y13, Y3, Y5; \
	VSUBPD    Y5, Y0, Y5; \
	VPERMILPD $5, Y4, Y4; \
	VMULPD    Y14, Y4, Y4; \
	VADDPD    Y3, Y0, Y0; \
	VMOVUPD   Y0, (DI)(BX*1); \
	VADDPD    Y4, Y5, Y1; \
	VSUBPD    Y4, Y5, Y2

// func radix3AVX(n int, a0, a1, a2, y0, y1, y2 *complex128, w *[10]float64)
//
// The radix-3 butterflies of n (even) terms: w holds the twiddles
// w1, w2 (real, imaginary), the pattern (−sn, sn, −sn, sn), ½ and, in
// w[9] ≠ 0, the mark of twiddles of 1.
TEXT ·radix3AVX(SB), NOSPLIT, $0-64
	MOVQ n+0(FP), CX
	MOVQ a0+8(FP), SI
	MOVQ a1+16(FP), R8
	MOVQ a2+24(FP), R9
	MOVQ y0+32(FP), DI
	MOVQ y1+40(FP), R11
	MOVQ y2+48(FP), R12
	MOVQ w+56(FP), AX
	VBROADCASTSD 0(AX), Y10
	VBROADCASTSD 8(AX), Y11
	VBROADCASTSD 16(AX), Y12
	VBROADCASTSD 24(AX), Y15
	VMOVUPD      32(AX), Y14
	VBROADCASTSD 64(AX), Y13
	XORQ         BX, BX
	SHLQ         $4, CX
	MOVQ         72(AX), DX
	TESTQ        DX, DX
	JNZ          ones3

twiddled3:
	CMPQ BX, CX
	JGE  done3
	THREE
	CMUL(Y1, Y10, Y11)
	VMOVUPD Y1, (R11)(BX*1)
	CMUL(Y2, Y12, Y15)
	VMOVUPD Y2, (R12)(BX*1)
	ADDQ    $32, BX
	JMP     twiddled3

ones3:
	CMPQ BX, CX
	JGE  done3
	THREE
	VMOVUPD Y1, (R11)(BX*1)
	VMOVUPD Y2, (R12)(BX*1)
	ADDQ    $32, BX
	JMP     ones3

done3:
	VZEROUPPER
	RET

// PROD sets dst to the products x·y of two pairs of complex numbers at
// byte offset BX of the pointers px, py: x times y's real parts, then
// the swapped x times y's imaginary parts, subtracted from the real
// parts and added to the imaginary ones — Go's complex multiplication,
// products rounded before the sums. Y6, Y7 are scratch.
#define PROD(px, py, dst) \
	VMOVUPD   (px)(BX*1), Y6; \
	VMOVDDUP  (py)(BX*1), Y7; \
	VMULPD    Y7, Y6, dst; \
	VPERMILPD $5, Y6, Y6; \
	VPERMILPD $15, (py)(BX*1), Y7; \
	VMULPD    Y7, Y6, Y6; \
	VADDSUBPD Y6, dst, dst

// func cmulAdd(n int, acc, t, v *complex128)
//
// acc[k] += t[k]·v[k] for k < n (even).
TEXT ·cmulAdd(SB), NOSPLIT, $0-32
	MOVQ n+0(FP), CX
	MOVQ acc+8(FP), DI
	MOVQ t+16(FP), SI
	MOVQ v+24(FP), DX
	XORQ BX, BX
	SHLQ $4, CX

mac1:
	CMPQ    BX, CX
	JGE     mac1done
	PROD(SI, DX, Y0)
	VADDPD  (DI)(BX*1), Y0, Y0
	VMOVUPD Y0, (DI)(BX*1)
	ADDQ    $32, BX
	JMP     mac1

mac1done:
	VZEROUPPER
	RET

// func cmulAdd2(n int, s, a, x, b, y *complex128)
//
// s[k] += a[k]·x[k] + b[k]·y[k] for k < n (even).
TEXT ·cmulAdd2(SB), NOSPLIT, $0-48
	MOVQ n+0(FP), CX
	MOVQ s+8(FP), DI
	MOVQ a+16(FP), SI
	MOVQ x+24(FP), DX
	MOVQ b+32(FP), R8
	MOVQ y+40(FP), R9
	XORQ BX, BX
	SHLQ $4, CX

mac2:
	CMPQ    BX, CX
	JGE     mac2done
	PROD(SI, DX, Y0)
	PROD(R8, R9, Y1)
	VADDPD  Y1, Y0, Y0
	VADDPD  (DI)(BX*1), Y0, Y0
	VMOVUPD Y0, (DI)(BX*1)
	ADDQ    $32, BX
	JMP     mac2

mac2done:
	VZEROUPPER
	RET

// func cmul(n int, dst, x, y *complex128)
//
// dst[k] = x[k]·y[k] for k < n (even).
TEXT ·cmul(SB), NOSPLIT, $0-32
	MOVQ n+0(FP), CX
	MOVQ dst+8(FP), DI
	MOVQ x+16(FP), SI
	MOVQ y+24(FP), DX
	XORQ BX, BX
	SHLQ $4, CX

mul1:
	CMPQ    BX, CX
	JGE     mul1done
	PROD(SI, DX, Y0)
	VMOVUPD Y0, (DI)(BX*1)
	ADDQ    $32, BX
	JMP     mul1

mul1done:
	VZEROUPPER
	RET

// func cmulScaled(n int, dst, x, y *complex128, c *[2]float64)
//
// dst[k] = (x[k]·c)·y[k] for k < n (even): x times the broadcast c
// (CMUL), then PROD's product with y.
TEXT ·cmulScaled(SB), NOSPLIT, $0-40
	MOVQ         n+0(FP), CX
	MOVQ         dst+8(FP), DI
	MOVQ         x+16(FP), SI
	MOVQ         y+24(FP), DX
	MOVQ         c+32(FP), AX
	VBROADCASTSD 0(AX), Y10
	VBROADCASTSD 8(AX), Y11
	XORQ         BX, BX
	SHLQ         $4, CX

mul2:
	CMPQ      BX, CX
	JGE       mul2done
	VMOVUPD   (SI)(BX*1), Y1
	CMUL(Y1, Y10, Y11)
	VMOVDDUP  (DX)(BX*1), Y7
	VMULPD    Y7, Y1, Y0
	VPERMILPD $5, Y1, Y1
	VPERMILPD $15, (DX)(BX*1), Y7
	VMULPD    Y7, Y1, Y1
	VADDSUBPD Y1, Y0, Y0
	VMOVUPD   Y0, (DI)(BX*1)
	ADDQ      $32, BX
	JMP       mul2

mul2done:
	VZEROUPPER
	RET
