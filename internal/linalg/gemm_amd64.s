#include "textflag.h"

// STEP is one step of the kernel: one row of the B panel at byte offset
// b of DI into Y0, Y1; the six entries of one column of the A panel at
// byte offset a of SI broadcast into Y2 and Y3 in turn; twelve fused
// multiply-adds into the accumulators Y4–Y15.
#define STEP(a, b) \
	VMOVUPD      (b)(DI), Y0; \
	VMOVUPD      (b+32)(DI), Y1; \
	VBROADCASTSD (a)(SI), Y2; \
	VBROADCASTSD (a+8)(SI), Y3; \
	VFMADD231PD  Y0, Y2, Y4; \
	VFMADD231PD  Y1, Y2, Y5; \
	VFMADD231PD  Y0, Y3, Y6; \
	VFMADD231PD  Y1, Y3, Y7; \
	VBROADCASTSD (a+16)(SI), Y2; \
	VBROADCASTSD (a+24)(SI), Y3; \
	VFMADD231PD  Y0, Y2, Y8; \
	VFMADD231PD  Y1, Y2, Y9; \
	VFMADD231PD  Y0, Y3, Y10; \
	VFMADD231PD  Y1, Y3, Y11; \
	VBROADCASTSD (a+32)(SI), Y2; \
	VBROADCASTSD (a+40)(SI), Y3; \
	VFMADD231PD  Y0, Y2, Y12; \
	VFMADD231PD  Y1, Y2, Y13; \
	VFMADD231PD  Y0, Y3, Y14; \
	VFMADD231PD  Y1, Y3, Y15

// ROW adds the accumulators lo, hi to the row of C at DX and moves DX to
// the next row (R8 bytes on).
#define ROW(lo, hi) \
	VADDPD  0(DX), lo, lo; \
	VADDPD  32(DX), hi, hi; \
	VMOVUPD lo, 0(DX); \
	VMOVUPD hi, 32(DX); \
	ADDQ    R8, DX

// func kernel6x8(k int, a, b, c *float64, ldc int)
//
// Twelve accumulators Y4–Y15 hold the 6×8 tile (two registers a row),
// built by k steps (STEP), two an iteration.
TEXT ·kernel6x8(SB), NOSPLIT, $0-40
	MOVQ k+0(FP), CX
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DI
	MOVQ c+24(FP), DX
	MOVQ ldc+32(FP), R8
	SHLQ $3, R8
	VXORPD Y4, Y4, Y4
	VXORPD Y5, Y5, Y5
	VXORPD Y6, Y6, Y6
	VXORPD Y7, Y7, Y7
	VXORPD Y8, Y8, Y8
	VXORPD Y9, Y9, Y9
	VXORPD Y10, Y10, Y10
	VXORPD Y11, Y11, Y11
	VXORPD Y12, Y12, Y12
	VXORPD Y13, Y13, Y13
	VXORPD Y14, Y14, Y14
	VXORPD Y15, Y15, Y15

	// Two steps an iteration, then the odd one.
	MOVQ CX, BX
	ANDQ $1, BX
	SHRQ $1, CX
	JZ   single

pair:
	STEP(0, 0)
	STEP(48, 64)
	ADDQ $96, SI
	ADDQ $128, DI
	DECQ CX
	JNZ  pair

single:
	TESTQ BX, BX
	JZ    done
	STEP(0, 0)

done:
	ROW(Y4, Y5)
	ROW(Y6, Y7)
	ROW(Y8, Y9)
	ROW(Y10, Y11)
	ROW(Y12, Y13)
	ROW(Y14, Y15)
	VZEROUPPER
	RET
