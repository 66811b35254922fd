package core

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"

	"gonum.org/v1/gonum/floats"

	"github.com/privmap/privmap/internal/linalg"
)

// KindPlanar names the planar geometric mechanism (FW §2.3) in study files.
const KindPlanar MechanismKind = "planar-geometric"

// planarKind is the planar geometric mechanism (FW §2.3), registered in kindRegistry.
var planarKind = Kind{Name: KindPlanar, Alphabets: []AlphabetKind{KindGrid}, Param: ParamEpsilon, GeoLevel: true, Convolution: true,
	build: func(ctx context.Context, s MechanismSpec, a Alphabet, _ func(int, float64)) (Mechanism, error) {
		m, err := newPlanarGeometric(ctx, a.Cols, a.Rows, a.CellKm, s.Epsilon)
		return m, err
	},
}

// MaxPlanarSide bounds the longer side of a planar geometric mechanism's
// grid: its border tables and its FFT torus grow with the square of that
// side, about planarBytes of it (0.5 GB at 2,048 cells), and building
// the tables takes time in proportion (12.7 s at 2,048 on this
// project's machine, where the tables held 0.24 GB before the torus).
const MaxPlanarSide = 2048

// planarBytes estimates the memory of a planar geometric mechanism whose
// grid's longer side is side cells: the near, row-tail and quadrant
// tables, (2m+1)², (2m+1)(m+2) and (m+2)² floats, and the torus of its
// FFT product, (2m+1)² reals and their spectrum, with m = side − 1:
// about 120·side² bytes.
func planarBytes(side int) float64 {
	m := float64(side)
	return 120 * m * m
}

// MaxLatticeRadius bounds the half-width of the lattice a planar
// geometric mechanism sums over; ε·s below minPlanarEpsCell needs more.
const MaxLatticeRadius = 2000

// minPlanarEpsCell is the smallest ε·s (per km times km) whose lattice
// fits MaxLatticeRadius, to three digits rounded up: the tail bound of
// latticeRadius at radius 2000 is 1e−15 at ε·s = 0.023979.
const minPlanarEpsCell = 0.024

// latticeTail is the relative mass of the lattice left out
// (package core's doc, "Mechanisms").
const latticeTail = 1e-15

// PlanarGeometric is the planar geometric mechanism of FW §2.3 on a grid
// of Cols×Rows square cells of side CellKm km, symbol row*Cols + col, with
// ε per km. On the infinite lattice of cell centres it reports g with
//
//	P(g | x) = λ e^{−ε d(x, g)},  λ = 1 / Σ_{(i,j)∈ℤ²} e^{−ε s √(i²+j²)},
//
// and a g outside the grid is remapped to the nearest cell by clamping each
// coordinate (post-processing, so ε-geo-indistinguishability per km is
// kept). The lattice is summed out to the grid's extent plus the
// Chebyshev radius where the remaining mass is below 1e−15 of the total,
// so that each border cell's sum keeps 1e−15 of its own value.
//
// The channel is a convolution except at the border, so besides Prob it
// offers matrix-free products (Apply, ApplyTranspose) by FFT on the padded
// lattice with the outside mass folded onto the border cells.
type PlanarGeometric struct {
	Cols, Rows int
	CellKm     float64
	Epsilon    float64

	radius int     // lattice half-width N
	q      float64 // e^{−ε s}
	lambda float64 // 1 / total lattice mass
	m      int     // max(Rows, Cols) − 1: the offsets the border sums need
	// rowTail[(i+m)*(m+2)+b] = Σ_{j ≤ b−m} W(i, j) for b ≤ m, and the whole
	// row for b = m+1; quad likewise Σ_{i ≤ a−m} Σ_{j ≤ b−m} W(i, j).
	rowTail, quad []float64
	// near[(i+m)*(2m+1)+j+m] = W(i, j) for |i|, |j| ≤ m: the weights of
	// the offsets within the grid, which Prob reads for interior outputs.
	near []float64

	fftOnce sync.Once
	fft     *linalg.Conv2
	// The interior convolution and edge tables of MulVecTo (edgeTables).
	edgeOnce sync.Once
	interior *linalg.Conv2
	tail     []float64
	// The spectra of the tail rows along a line of the torus
	// (edgeSpectra).
	specOnce sync.Once
	edgeSpec [][]complex128
	// cornerW[2·(r>0)+(c>0)][x] is the weight of input x at corner (r, c)
	// (border.corner), made on first use.
	cornerOnce sync.Once
	cornerW    [4][]float64
	// The entrywise square of the channel (squared).
	sqOnce sync.Once
	sq     operator
	// scratches recycles bordered's work space (borderScratch).
	scratches sync.Pool
}

// PlanarGeometric's capabilities.
var (
	_ Channel     = (*PlanarGeometric)(nil)
	_ Sampler     = (*PlanarGeometric)(nil)
	_ rowOperator = (*PlanarGeometric)(nil)
	_ localReader = (*PlanarGeometric)(nil)
)

// NewPlanarGeometric returns the planar geometric mechanism with ε per km
// on a cols×rows grid of cellKm km cells.
func NewPlanarGeometric(cols, rows int, cellKm, eps float64) (*PlanarGeometric, error) {
	return newPlanarGeometric(context.Background(), cols, rows, cellKm, eps)
}

// newPlanarGeometric is NewPlanarGeometric, stopping with ctx's error
// once ctx is done: its tables take seconds on a large grid (5 s at 2,048
// cells a side, 15 s at the smallest ε·s).
func newPlanarGeometric(ctx context.Context, cols, rows int, cellKm, eps float64) (*PlanarGeometric, error) {
	k, err := gridCells(cols, rows)
	if err != nil {
		return nil, err
	}
	if k < 2 {
		return nil, fmt.Errorf("core: planar grid must have at least 2 cells, got %d×%d", cols, rows)
	}
	side := max(cols, rows)
	if side > MaxPlanarSide {
		return nil, fmt.Errorf("core: a planar geometric mechanism on a %d×%d grid needs about %s of tables (they grow with the square of the longer side); at most %d cells a side",
			cols, rows, bytesText(planarBytes(side)), MaxPlanarSide)
	}
	if !(cellKm > 0) || math.IsInf(cellKm, 0) {
		return nil, fmt.Errorf("core: cell side must be positive and finite, got %v km", cellKm)
	}
	if err := CheckMemory(fmt.Sprintf("a planar geometric mechanism on a %d×%d grid", cols, rows), planarBytes(side)); err != nil {
		return nil, err
	}
	if err := checkEpsilon(eps); err != nil {
		return nil, err
	}
	m := &PlanarGeometric{Cols: cols, Rows: rows, CellKm: cellKm, Epsilon: eps}
	m.q = math.Exp(-eps * cellKm)
	m.radius = latticeRadius(m.q)
	if m.radius > MaxLatticeRadius {
		return nil, fmt.Errorf("core: planar ε·s = %v needs a lattice of radius %d, more than %d; ε times the cell side must be at least %v (a larger ε or larger cells)", eps*cellKm, m.radius, MaxLatticeRadius, minPlanarEpsCell)
	}
	// A border cell collects a half-line (or quadrant) of offsets
	// starting as far as the grid is wide. Summed only to the radius
	// above, such a sum loses its own terms — it is 0 for bounds beyond
	// the radius, making outputs impossible from far inputs — and the
	// channel loses its ε-geo-indistinguishability. Reaching that radius
	// beyond the grid's extent, every sum keeps 1e−15 of its own value.
	m.radius += max(rows, cols) - 1
	if err := m.tables(ctx); err != nil {
		return nil, err
	}
	return m, nil
}

// latticeRadius returns the smallest N for which the lattice beyond
// Chebyshev radius N holds less than latticeTail of the mass. Ring n has
// 8n points, each at least n·s away, so the tail is at most
//
//	8 Σ_{n>N} n qⁿ = 8 q^{N+1} ((N+1) − N q) / (1−q)²
//
// and the total mass is at least 1 (the centre). The bound falls with N
// (the ratio of consecutive terms is q(N(1−q)+2−q)/(N(1−q)+1) < 1), so
// beyond MaxLatticeRadius, where a mechanism is refused with the radius
// it would need, the radius is found by bisection on its logarithm
// rather than by walking millions of rings.
func latticeRadius(q float64) int {
	logTail := func(n float64) float64 {
		return math.Log(8) + (n+1)*math.Log(q) + math.Log(n+1-n*q) - 2*math.Log1p(-q)
	}
	for n := 1; n <= MaxLatticeRadius+1; n++ {
		if 8*math.Pow(q, float64(n+1))*(float64(n+1)-float64(n)*q)/((1-q)*(1-q)) < latticeTail {
			return n
		}
	}
	lo, hi := float64(MaxLatticeRadius+1), float64(2*(MaxLatticeRadius+1))
	for logTail(hi) >= math.Log(latticeTail) && hi < 1<<52 {
		lo, hi = hi, 2*hi
	}
	for hi-lo > 1 {
		if mid := math.Floor((lo + hi) / 2); logTail(mid) < math.Log(latticeTail) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return int(hi)
}

// w returns the unnormalised lattice weight e^{−ε s √(i²+j²)}.
func (m *PlanarGeometric) w(i, j int) float64 {
	return math.Exp(-m.Epsilon * m.CellKm * math.Hypot(float64(i), float64(j)))
}

// tables computes the half-line and quadrant sums of the lattice weights
// that the border cells collect. Every sum runs from the far tail
// inwards, adding small terms first, so that tiny probabilities keep
// their relative precision (the privacy audit takes their ratios).
func (m *PlanarGeometric) tables(ctx context.Context) error {
	n, mm := m.radius, max(m.Rows, m.Cols)-1
	m.m = mm
	width := mm + 2
	m.rowTail = make([]float64, (2*mm+1)*width)
	m.quad = make([]float64, width*width)
	row := make([]float64, width) // this row's tails
	for i := -n; i <= n; i++ {
		if i&63 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		acc := 0.0
		for j := -n; j <= n; j++ {
			acc += m.w(i, j)
			if j >= -mm && j <= 0 {
				row[j+mm] = acc
			}
		}
		row[mm+1] = acc
		if i >= -mm && i <= mm {
			copy(m.rowTail[(i+mm)*width:], row)
		}
		// Quadrant sums: add this row to every a ≥ i.
		for a := max(i, -mm); a <= 0; a++ {
			for b := range width {
				m.quad[(a+mm)*width+b] += row[b]
			}
		}
		for b := range width {
			m.quad[(mm+1)*width+b] += row[b]
		}
	}
	m.lambda = 1 / m.quad[(mm+1)*width+mm+1]
	span := 2*mm + 1
	m.near = make([]float64, span*span)
	for i := -mm; i <= mm; i++ {
		for j := -mm; j <= mm; j++ {
			m.near[(i+mm)*span+j+mm] = m.w(i, j)
		}
	}
	return nil
}

// Inputs returns Cols·Rows.
func (m *PlanarGeometric) Inputs() int { return m.Cols * m.Rows }

// Outputs returns Cols·Rows.
func (m *PlanarGeometric) Outputs() int { return m.Cols * m.Rows }

// positiveOutputs marks every output of the planar geometric mechanism
// as possible under every input (see positiveChannel).
func (m *PlanarGeometric) positiveOutputs() {}

// Radius returns the half-width of the lattice summed over.
func (m *PlanarGeometric) Radius() int { return m.radius }

// span describes the lattice offsets, relative to the input, that an
// output coordinate collects: the single offset d, or all offsets ≤ d
// (half), mirrored so that d ≤ 0; d = +∞ (full) is encoded as half with
// full set.
type span struct {
	d          int
	half, full bool
}

// coordSpan returns the span of output coordinate z for input x0 on an
// axis of n cells.
func coordSpan(z, x0, n int) span {
	switch {
	case n == 1:
		return span{half: true, full: true}
	case z == 0:
		return span{d: -x0, half: true} // g ≤ 0
	case z == n-1:
		return span{d: -(n - 1 - x0), half: true} // g ≥ n−1, mirrored
	}
	return span{d: z - x0}
}

// idx maps a half-line bound to its table column.
func (m *PlanarGeometric) idx(s span) int {
	if s.full {
		return m.m + 1
	}
	return s.d + m.m
}

// Prob returns P(z | x).
func (m *PlanarGeometric) Prob(x, z int) float64 {
	r0, c0 := x/m.Cols, x%m.Cols
	r, c := z/m.Cols, z%m.Cols
	rs, cs := coordSpan(r, r0, m.Rows), coordSpan(c, c0, m.Cols)
	width := m.m + 2
	var s float64
	switch {
	case !rs.half && !cs.half:
		s = m.near[(rs.d+m.m)*(2*m.m+1)+cs.d+m.m]
	case !rs.half:
		s = m.rowTail[(rs.d+m.m)*width+m.idx(cs)]
	case !cs.half:
		s = m.rowTail[(cs.d+m.m)*width+m.idx(rs)] // W(i, j) = W(j, i)
	default:
		s = m.quad[m.idx(rs)*width+m.idx(cs)]
	}
	return m.lambda * s
}

// probRow sets dst[z] = P(z | x) for every output z, as Prob does, one
// output row at a time: an interior row's interior outputs are a stretch
// of near.
func (m *PlanarGeometric) probRow(x int, dst []float64) {
	r0, c0 := x/m.Cols, x%m.Cols
	width, span2 := m.m+2, 2*m.m+1
	for r := range m.Rows {
		rs := coordSpan(r, r0, m.Rows)
		row := dst[r*m.Cols : (r+1)*m.Cols]
		for c := 0; c < len(row); c++ {
			cs := coordSpan(c, c0, m.Cols)
			var v float64
			switch {
			case !rs.half && !cs.half:
				if c > 0 && c < m.Cols-1 {
					// The rest of the row up to its last output.
					near := m.near[(rs.d+m.m)*span2+cs.d+m.m:]
					for j := c; j < m.Cols-1; j++ {
						row[j] = m.lambda * near[j-c]
					}
					c = m.Cols - 2
					continue
				}
				v = m.near[(rs.d+m.m)*span2+cs.d+m.m]
			case !rs.half:
				v = m.rowTail[(rs.d+m.m)*width+m.idx(cs)]
			case !cs.half:
				v = m.rowTail[(cs.d+m.m)*width+m.idx(rs)]
			default:
				v = m.quad[m.idx(rs)*width+m.idx(cs)]
			}
			row[c] = m.lambda * v
		}
	}
}

// Sample draws a lattice point about x exactly and clamps it to the grid.
// The lattice law λe^{−εs‖g‖} is sampled by rejection from the separable
// envelope e^{−εs(|i|+|j|)/√2} ≥ e^{−εs‖g‖}, a pair of two-sided
// geometric draws, accepting with probability e^{−εs(‖g‖−(|i|+|j|)/√2)};
// at least 2π/8 of the proposals are accepted.
func (m *PlanarGeometric) Sample(rng *rand.Rand, x int) int {
	es := m.Epsilon * m.CellKm
	rate := es / math.Sqrt2
	for {
		i, j := twoSided(rng, rate), twoSided(rng, rate)
		fi, fj := float64(i), float64(j)
		accept := math.Exp(-es * (math.Hypot(fi, fj) - (math.Abs(fi)+math.Abs(fj))/math.Sqrt2))
		if rng.Float64() < accept {
			r := min(max(x/m.Cols+i, 0), m.Rows-1)
			c := min(max(x%m.Cols+j, 0), m.Cols-1)
			return r*m.Cols + c
		}
	}
}

// Likelihood sets dst[x] = P(r | x).
func (m *PlanarGeometric) Likelihood(dst []float64, r Report) ([]float64, float64) {
	dst = fill(dst, m.Inputs(), 0)
	for x := range dst {
		dst[x] = m.Prob(x, r.Symbol)
	}
	return dst, 0
}

// DistanceKm returns the distance between the centres of cells x and y.
func (m *PlanarGeometric) DistanceKm(x, y int) float64 {
	return m.CellKm * math.Hypot(float64(x/m.Cols-y/m.Cols), float64(x%m.Cols-y%m.Cols))
}

// MulVecTo computes without forming A, in the manner of gonum's
// mat.Dense.MulVecTo,
//
//	dst = A x    (trans false): dst[x'] = Σ_z P(z|x') x[z]
//	dst = Aᵀ x   (trans true):  dst[z] = Σ_x x[x] P(z|x), the output law of inputs drawn from x
//
// and allocates dst when it is nil. On grids of at least 3×3 cells the
// channel splits exactly by output (bordered):
//
//   - an interior output z collects the single offset z − x, so the
//     interior is the convolution with the lattice weights W restricted to
//     offsets within the grid, by FFT on a (2m+1)² torus, m = max(Rows,
//     Cols) − 1, whatever the lattice radius;
//   - an output on a border edge collects a half-line of offsets, whose
//     sums are the table rowTail: for each input row (column) a
//     convolution along the edge, O(Rows·Cols²) in all;
//   - a corner collects a quadrant, the table quad: O(K).
//
// It agrees with the dense matrix of Prob to about 1e−15 relative. Smaller
// grids use the padded lattice (mulVecPadded).
func (m *PlanarGeometric) MulVecTo(dst []float64, trans bool, x []float64) []float64 {
	k := m.Inputs()
	if len(x) != k {
		panic("core: slice length mismatch")
	}
	dst = fill(dst, k, 0)
	if m.Rows < 3 || m.Cols < 3 {
		return m.mulVecPadded(dst, trans, x)
	}
	return m.bordered(dst, trans, x)
}

// edgeTables returns, made on first use, the interior FFT convolution and
// tail[b*(2m+1) + j+m] = Σ_{i ≤ b−m} W(i, j) for |j| ≤ m, 0 ≤ b ≤ m: the
// half-line sums of rowTail (W(i, j) = W(j, i)) laid out contiguously
// along j for each bound, as the edge convolutions read them.
func (m *PlanarGeometric) edgeTables() (*linalg.Conv2, []float64) {
	m.edgeOnce.Do(func() {
		mm, width := m.m, m.m+2
		n := linalg.Smooth(2*mm + 1)
		m.interior = linalg.NewConv2(n, n, mm, func(i, j int) float64 { return m.near[(i+mm)*(2*mm+1)+j+mm] })
		span := 2*mm + 1
		m.tail = make([]float64, (mm+1)*span)
		for b := 0; b <= mm; b++ {
			for j := -mm; j <= mm; j++ {
				m.tail[b*span+j+mm] = m.rowTail[(j+mm)*width+b]
			}
		}
	})
	return m.interior, m.tail
}

// bordered is MulVecTo on a grid of at least 3×3 cells; dst is zeroed.
func (m *PlanarGeometric) bordered(dst []float64, trans bool, x []float64) []float64 {
	c, _ := m.edgeTables()
	b := m.newBorder(trans, x, dst)
	// The interior's transforms and the edges' are independent: one core
	// each, the edges into a buffer of their own.
	sc := m.scratch(c)
	defer m.scratches.Put(sc)
	edges := sc.edges
	linalg.Each(2, func(i int) {
		switch {
		case i == 0:
			b.interior(c)
		case !m.spectral(false):
			eb := m.newBorder(trans, x, edges)
			eb.edges()
		case trans:
			sc.lines.transform(x)
			m.edgesForward(edges, sc.lines, sc.lines.fft, sc.acc, sc.buf)
		default:
			sc.lines.clear()
			sc.terms = m.edgeInputs(sc.terms, x, 1, sc.lines.fft, sc.buf)
			m.edgesAdjoint(sc.lines, sc.terms)
			sc.lines.back(edges)
		}
	})
	floats.Add(dst, edges)
	b.corners()
	floats.Scale(m.lambda, dst)
	return dst
}

// borderScratch is the work space of one application of bordered,
// recycled: the edges' outputs and, on the FFT path, the lines' spectra
// and a spectrum and a line of the torus' side.
type borderScratch struct {
	edges []float64
	terms edgeTerms // the edges' spectra of an A x, reused
	lines *lines
	acc   []complex128
	buf   []float64
}

// scratch returns a borderScratch with its edges zeroed.
func (m *PlanarGeometric) scratch(c *linalg.Conv2) *borderScratch {
	sc, ok := m.scratches.Get().(*borderScratch)
	if ok {
		clear(sc.edges)
	} else {
		sc = &borderScratch{edges: make([]float64, m.Inputs())}
	}
	if sc.lines == nil && m.spectral(false) {
		sc.lines, sc.acc, sc.buf = newLines(m.Rows, m.Cols, c.W), make([]complex128, c.W/2+1), make([]float64, c.W)
	}
	return sc
}

// newBorder returns the border of one application of bordered: dst is
// A x or Aᵀ x (trans), unnormalised, once the interior and rim parts are
// added.
func (m *PlanarGeometric) newBorder(trans bool, x, dst []float64) border {
	_, tail := m.edgeTables()
	return border{m: m, trans: trans, x: x, dst: dst, tail: tail}
}

// edges adds the outputs on the border's four edges, which collect
// half-lines of offsets, by dot products (see edgeSpectra for the FFT).
func (b *border) edges() {
	rows, cols, mm := b.m.Rows, b.m.Cols, b.m.m
	byRow := func(i, q int) int { return i*cols + q }
	byCol := func(i, q int) int { return q*cols + i }
	b.edge(byRow, rows, cols, func(p int) int { return p }, func(i int) int { return mm - i })
	b.edge(byRow, rows, cols, func(p int) int { return (rows-1)*cols + p }, func(i int) int { return mm - (rows - 1 - i) })
	b.edge(byCol, cols, rows, func(p int) int { return p * cols }, func(i int) int { return mm - i })
	b.edge(byCol, cols, rows, func(p int) int { return p*cols + cols - 1 }, func(i int) int { return mm - (cols - 1 - i) })
}

// corners adds the outputs of the four corners, which collect quadrants.
func (b *border) corners() {
	rows, cols := b.m.Rows, b.m.Cols
	for _, corner := range [4][2]int{{0, 0}, {0, cols - 1}, {rows - 1, 0}, {rows - 1, cols - 1}} {
		b.corner(corner[0], corner[1])
	}
}

// border holds one application of bordered: dst = A x or Aᵀ x (trans),
// unnormalised, built part by part.
type border struct {
	m       *PlanarGeometric
	trans   bool
	x, dst  []float64
	tail    []float64
	in, out []float64 // a line along an edge
}

// interior adds the outputs that collect the single offset z − x: the
// convolution with W, which is symmetric, so that A's part and Aᵀ's are
// one convolution — of x over every input for Aᵀ, of x on the interior
// outputs for A.
func (b *border) interior(c *linalg.Conv2) {
	a := c.Buffer()
	defer c.Done(a)
	b.place(a, c)
	c.Apply(a, b.m.Rows, b.m.Rows)
	b.read(a, c, 1)
}

// place writes the inputs of the interior part into a, a zeroed array
// on c's torus: every input for Aᵀ (trans), the interior ones for A.
func (b *border) place(a []float64, c *linalg.Conv2) {
	cols := b.m.Cols
	r0, r1, lo, hi := b.cells(b.trans)
	for r := r0; r < r1; r++ {
		copy(a[r*c.W+lo:r*c.W+hi], b.x[r*cols+lo:r*cols+hi])
	}
}

// read sets the outputs of the interior part from a, the convolution
// on c's torus, times scale (1/(h·w) when a is the unnormalised inverse
// transform): every output for A, the interior ones for Aᵀ (trans).
func (b *border) read(a []float64, c *linalg.Conv2, scale float64) {
	cols := b.m.Cols
	r0, r1, lo, hi := b.cells(!b.trans)
	for r := r0; r < r1; r++ {
		dst := b.dst[r*cols+lo : r*cols+hi]
		for q, v := range a[r*c.W+lo : r*c.W+hi] {
			dst[q] = v * scale
		}
	}
}

// cells returns the rows [r0, r1) and columns [lo, hi) of the grid's
// cells: all of them, or the interior ones (off the border).
func (b *border) cells(all bool) (r0, r1, lo, hi int) {
	rows, cols := b.m.Rows, b.m.Cols
	if all {
		return 0, rows, 0, cols
	}
	if rows < 3 || cols < 3 {
		return 0, 0, 0, 0
	}
	return 1, rows - 1, 1, cols - 1
}

// edge adds the outputs of one edge, which collect a half-line across
// it: output p along the low row edge takes from input (r0, q) the
// weight tail[(m−r0)·span + p−q+m]; the high edge mirrors r0 to
// rows−1−r0; the column edges are the same along rows. line(i, q) is the
// input at i across the edge and q along it, edgeAt(p) the output p
// along it, bound(i) the tail row of inputs i across. Each sum is a dot
// product of a contiguous stretch of the tail with the line (reversed
// for Aᵀ), by gonum's floats.Dot.
func (b *border) edge(line func(i, q int) int, nIn, n int, edgeAt func(p int) int, bound func(i int) int) {
	mm, span := b.m.m, 2*b.m.m+1
	if b.in == nil { // made here: the spectral path of a batch needs none
		b.in, b.out = make([]float64, max(b.m.Rows, b.m.Cols)), make([]float64, max(b.m.Rows, b.m.Cols))
	}
	v, o := b.in[:n], b.out[:n]
	if !b.trans {
		for p := range o { // the inputs x on the edge's outputs
			o[p] = b.x[edgeAt(p)]
		}
	}
	for i := range nIn {
		t := b.tail[bound(i)*span : (bound(i)+1)*span]
		if !b.trans {
			// dst(i, q) += Σ_{0<p<n−1} t[p−q+mm] x(edge p)
			for q := range n {
				b.dst[line(i, q)] += floats.Dot(t[1-q+mm:n-1-q+mm], o[1:n-1])
			}
			continue
		}
		// out(p) += Σ_q t[p−q+mm] x(i, q) = Σ_r t[p−n+1+mm+r] x(i, n−1−r)
		for r := range v {
			v[r] = b.x[line(i, n-1-r)]
		}
		for p := 1; p < n-1; p++ {
			o[p] += floats.Dot(t[p-n+1+mm:p+1+mm], v)
		}
	}
	if b.trans {
		for p := 1; p < n-1; p++ {
			b.dst[edgeAt(p)] += o[p]
			o[p] = 0
		}
	}
}

// corner adds the corner output (r, c), which collects a quadrant: a
// dot product with the corner's weights (cornerWeights) for Aᵀ, their
// multiple for A.
func (b *border) corner(r, c int) {
	m := b.m
	i := 0
	if r > 0 {
		i += 2
	}
	if c > 0 {
		i++
	}
	w := m.cornerWeights()[i]
	z := r*m.Cols + c
	if b.trans {
		b.dst[z] += floats.Dot(w, b.x)
		return
	}
	floats.AddScaled(b.dst, b.x[z], w)
}

// cornerWeights returns, made on first use, the weights of every input
// at each corner (r, c): quad[bi·(m+2) + bj], bi and bj the input's
// distances in rows and columns from the quadrant's far side.
func (m *PlanarGeometric) cornerWeights() *[4][]float64 {
	m.cornerOnce.Do(func() {
		rows, cols, mm, width := m.Rows, m.Cols, m.m, m.m+2
		for i, rc := range [4][2]int{{0, 0}, {0, cols - 1}, {rows - 1, 0}, {rows - 1, cols - 1}} {
			w := make([]float64, rows*cols)
			for xr := range rows {
				bi := mm - xr
				if rc[0] > 0 {
					bi = mm - (rows - 1 - xr)
				}
				for xc := range cols {
					bj := mm - xc
					if rc[1] > 0 {
						bj = mm - (cols - 1 - xc)
					}
					w[xr*cols+xc] = m.quad[bi*width+bj]
				}
			}
			m.cornerW[i] = w
		}
	})
	return &m.cornerW
}

// operator returns the FFT convolution on the lattice padded by the
// radius on every side, made on first use.
func (m *PlanarGeometric) operator() *linalg.Conv2 {
	m.fftOnce.Do(func() {
		n := m.radius
		h, w := linalg.Smooth(m.Rows+2*n), linalg.Smooth(m.Cols+2*n)
		m.fft = linalg.NewConv2(h, w, n, func(i, j int) float64 { return m.lambda * m.w(i, j) })
	})
	return m.fft
}

// mulVecPadded is MulVecTo by FFT convolution with the lattice kernel on
// the grid padded by the lattice radius, folding the mass outside the
// grid onto the border cells (trans) or extending x outwards by its
// border values (not trans); dst is zeroed. It agrees with the dense
// matrix of Prob to about 1e−15·max|x| (not trans) and 1e−13·‖x‖₁
// (trans: folding adds up the rounding of the whole padded lattice), but
// the padded lattice is large where ε·s is small.
func (m *PlanarGeometric) mulVecPadded(dst []float64, trans bool, x []float64) []float64 {
	c, n := m.operator(), m.radius
	a := make([]float64, c.H*c.W)
	hh, ww := m.Rows+2*n, m.Cols+2*n
	clamp := func(u, v int) int {
		r := min(max(u-n, 0), m.Rows-1)
		cc := min(max(v-n, 0), m.Cols-1)
		return r*m.Cols + cc
	}
	if trans {
		for z, v := range x {
			a[(z/m.Cols+n)*c.W+z%m.Cols+n] = v
		}
		c.Apply(a, m.Rows+n, hh)
		for u := range hh {
			for v := range ww {
				dst[clamp(u, v)] += a[u*c.W+v]
			}
		}
		return dst
	}
	for u := range hh {
		for v := range ww {
			a[u*c.W+v] = x[clamp(u, v)]
		}
	}
	c.Apply(a, hh, m.Rows+n)
	for z := range dst {
		dst[z] = a[(z/m.Cols+n)*c.W+z%m.Cols+n]
	}
	return dst
}

// fftWork estimates the multiply-adds of one FFT on m's torus of
// (2m+1)² cells, 5N·log₂N.
func (m *PlanarGeometric) fftWork() float64 {
	n := float64((2*m.m + 1) * (2*m.m + 1))
	return 5 * n * math.Log2(n)
}

// work estimates the multiply-adds of one product: two FFTs (worker).
func (m *PlanarGeometric) work() float64 { return 2 * m.fftWork() }

// squared returns A∘A: every entry of the bordered product is λ times
// one entry of the tables near, rowTail or quad, so A∘A is the bordered
// product of their squares with λ², exactly.
func (m *PlanarGeometric) squared() operator {
	m.sqOnce.Do(func() {
		sq := func(t []float64) []float64 {
			out := make([]float64, len(t))
			for i, v := range t {
				out[i] = v * v
			}
			return out
		}
		s := &PlanarGeometric{Cols: m.Cols, Rows: m.Rows, CellKm: m.CellKm, m: m.m, lambda: m.lambda * m.lambda,
			near: sq(m.near), rowTail: sq(m.rowTail), quad: sq(m.quad)}
		m.sq = borderedOp{s}
	})
	return m.sq
}

// gridShape returns the grid m is drawn on: localReader.
func (m *PlanarGeometric) gridShape() (cols, rows int, ok bool) { return m.Cols, m.Rows, true }

// setLocal sets ch's channel to m's, the reach of its rows beyond a
// window (localMargin) and its output law at θ: localReader.
func (m *PlanarGeometric) setLocal(ch *localChannel, theta []float64) {
	ch.planar = m
	ch.margin = localMargin(m.Epsilon, m.CellKm)
	ch.out = m.MulVecTo(nil, true, theta)
}
