package linalg

import (
	"sync"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// The blocking of Gemm (Goto and van de Geijn, "Anatomy of
// high-performance matrix multiplication", ACM TOMS 34(3), 2008): B is
// packed kc×nc at a time into panels of gemmNR columns, A mc×kc at a time
// into panels of gemmMR rows scaled by α, and a register-blocked kernel
// multiplies one panel of each into a gemmMR×gemmNR tile of C. The
// packed A block (mc·kc·8 = 192 KB) stays in a core's L2 cache, a packed
// B panel (kc·gemmNR·8 = 16 KB) in L1.
const (
	gemmMR = 6
	gemmNR = 8
	gemmKC = 256
	gemmMC = 96
	gemmNC = 2048
)

// Gemm sets c = α·op(a)·op(b) + β·c, op transposing when ta (tb) is
// blas.Trans, as blas64.Gemm does, on the calling goroutine only. On
// amd64 with AVX2 and FMA its kernel is a 6×8 tile of fused multiply-adds
// in assembly, about four times gonum's pure-Go Dgemm per core on the
// project's machine (docs/PERFORMANCE.md); elsewhere it is blas64.Gemm.
// Written here because the n³ of corrected EM's K×K inversion
// (InvertSPD) is the largest dense work privmap does, and gonum's
// assembly kernels stop at level 1.
func Gemm(ta, tb blas.Transpose, alpha float64, a, b blas64.General, beta float64, c blas64.General) {
	m, k := a.Rows, a.Cols
	if ta == blas.Trans {
		m, k = k, m
	}
	kb, n := b.Rows, b.Cols
	if tb == blas.Trans {
		kb, n = n, kb
	}
	if kb != k || c.Rows != m || c.Cols != n {
		panic("linalg: Gemm: dimension mismatch")
	}
	if !fastKernel || m == 0 || n == 0 {
		blas64.Gemm(ta, tb, alpha, a, b, beta, c)
		return
	}
	scaleRows(c, beta)
	if alpha == 0 || k == 0 {
		return
	}
	ws := gemmWork.Get().(*gemmSpace)
	defer gemmWork.Put(ws)
	ap, bp := ws.a[:], ws.b[:gemmKC*min(gemmNC, roundUp(n, gemmNR))]
	for jc := 0; jc < n; jc += gemmNC {
		nc := min(gemmNC, n-jc)
		for pc := 0; pc < k; pc += gemmKC {
			kc := min(gemmKC, k-pc)
			packB(bp, b, tb == blas.Trans, pc, jc, kc, nc)
			for ic := 0; ic < m; ic += gemmMC {
				mc := min(gemmMC, m-ic)
				packA(ap, a, ta == blas.Trans, alpha, ic, pc, mc, kc)
				macroTile(ap, bp, c, ic, jc, mc, nc, kc)
			}
		}
	}
}

// macroTile adds the product of the packed blocks ap (mc×kc) and bp
// (kc×nc) to c at (ic, jc), a gemmMR×gemmNR tile at a time; tiles cut by
// c's edges go through a full tile on the stack.
func macroTile(ap, bp []float64, c blas64.General, ic, jc, mc, nc, kc int) {
	var tile [gemmMR * gemmNR]float64
	for jr := 0; jr < nc; jr += gemmNR {
		nr := min(gemmNR, nc-jr)
		bpan := bp[jr*kc:]
		for ir := 0; ir < mc; ir += gemmMR {
			mr := min(gemmMR, mc-ir)
			apan := ap[ir*kc:]
			ci := (ic+ir)*c.Stride + jc + jr
			if mr == gemmMR && nr == gemmNR {
				kernel6x8(kc, &apan[0], &bpan[0], &c.Data[ci], c.Stride)
				continue
			}
			tile = [gemmMR * gemmNR]float64{}
			kernel6x8(kc, &apan[0], &bpan[0], &tile[0], gemmNR)
			for i := range mr {
				row := c.Data[ci+i*c.Stride : ci+i*c.Stride+nr]
				for j := range row {
					row[j] += tile[i*gemmNR+j]
				}
			}
		}
	}
}

// gemmSpace is one Gemm's packed blocks, recycled (gemmWork): 4 MB a
// call made afresh cleared more memory than the packing wrote.
type gemmSpace struct {
	a [gemmMC * gemmKC]float64
	b [gemmKC * gemmNC]float64
}

var gemmWork = sync.Pool{New: func() any { return new(gemmSpace) }}

// scaleRows sets c = β·c (c cleared when β = 0).
func scaleRows(c blas64.General, beta float64) {
	if beta == 1 {
		return
	}
	for i := range c.Rows {
		row := c.Data[i*c.Stride : i*c.Stride+c.Cols]
		if beta == 0 {
			clear(row)
			continue
		}
		for j := range row {
			row[j] *= beta
		}
	}
}

func roundUp(n, m int) int { return (n + m - 1) / m * m }

// packA writes α·op(a)[ic:ic+mc, pc:pc+kc] into ap as panels of gemmMR
// rows, each kc columns of gemmMR entries, rows past mc zero; a is read
// along its rows.
func packA(ap []float64, a blas64.General, trans bool, alpha float64, ic, pc, mc, kc int) {
	for ir := 0; ir < mc; ir += gemmMR {
		pan := ap[ir*kc : ir*kc+gemmMR*kc]
		mr := min(gemmMR, mc-ir)
		if trans {
			for p := range kc {
				src := a.Data[(pc+p)*a.Stride+ic+ir : (pc+p)*a.Stride+ic+ir+mr]
				dst := pan[p*gemmMR : p*gemmMR+gemmMR]
				for i, v := range src {
					dst[i] = alpha * v
				}
				clear(dst[mr:])
			}
			continue
		}
		for i := range gemmMR {
			if i >= mr {
				for p := range kc {
					pan[p*gemmMR+i] = 0
				}
				continue
			}
			r := ic + ir + i
			row := a.Data[r*a.Stride+pc : r*a.Stride+pc+kc]
			for p, v := range row {
				pan[p*gemmMR+i] = alpha * v
			}
		}
	}
}

// packB writes op(b)[pc:pc+kc, jc:jc+nc] into bp as panels of gemmNR
// columns, each kc rows of gemmNR entries, columns past nc zero; b is
// read along its rows.
func packB(bp []float64, b blas64.General, trans bool, pc, jc, kc, nc int) {
	for jr := 0; jr < nc; jr += gemmNR {
		pan := bp[jr*kc : jr*kc+gemmNR*kc]
		nr := min(gemmNR, nc-jr)
		if trans {
			for j := range gemmNR {
				if j >= nr {
					for p := range kc {
						pan[p*gemmNR+j] = 0
					}
					continue
				}
				src := b.Data[(jc+jr+j)*b.Stride+pc : (jc+jr+j)*b.Stride+pc+kc]
				for p, v := range src {
					pan[p*gemmNR+j] = v
				}
			}
			continue
		}
		for p := range kc {
			dst := pan[p*gemmNR : p*gemmNR+gemmNR]
			copy(dst, b.Data[(pc+p)*b.Stride+jc+jr:(pc+p)*b.Stride+jc+jr+nr])
			clear(dst[nr:])
		}
	}
}
