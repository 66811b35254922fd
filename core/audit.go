package core

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/floats"

	"github.com/privmap/privmap/internal/linalg"
)

// WorstLDP returns the smallest ε for which c is ε-LDP, read off its
// channel:
//
//	ε = max_z max_{x,x'} ln( P(z|x) / P(z|x') )
//
// over the outputs z for which keep(z) is true (every output when keep
// is nil). It is +Inf when some kept output is possible under one input
// and impossible under another.
func WorstLDP(c Channel, keep func(z int) bool) float64 {
	worst, _ := worstLDP(context.Background(), c, keep)
	return worst
}

// worstLDP is WorstLDP, stopping with ctx's error once ctx is done.
func worstLDP(ctx context.Context, c Channel, keep func(z int) bool) (float64, error) {
	worst := 0.0
	for z := range c.Outputs() {
		if keep != nil && !keep(z) {
			continue
		}
		if z&63 == 0 {
			if err := ctx.Err(); err != nil {
				return 0, err
			}
		}
		lo, hi := math.Inf(1), 0.0
		for x := range c.Inputs() {
			p := c.Prob(x, z)
			if p < lo { // plain comparisons: math.Min and Max weigh on K²
				lo = p
			}
			if p > hi {
				hi = p
			}
		}
		if hi == 0 {
			continue // impossible output
		}
		worst = math.Max(worst, linalg.Log(hi)-linalg.Log(lo))
	}
	return worst, nil
}

// sampleBits draws k independent bits, bit j being 1 with probability
// p1(j). Callers pass a p1 with their exponentials computed once per
// report, not once per bit.
func sampleBits(rng *rand.Rand, k int, p1 func(j int) float64) Bits {
	bits := make([]byte, k)
	for j := range bits {
		if rng.Float64() < p1(j) {
			bits[j] = 1
		}
	}
	return NewBits(bits)
}

// WorstBitLDP returns the smallest ε for which c is ε-LDP on the outputs
// whose bits listed in zeros are 0. As the bits are independent given x,
// the worst ratio over all 2^K outputs factorises exactly:
//
//	max_v P(v|x)/P(v|x') = Π_j max_b P(b_j|x)/P(b_j|x')
//
// with b_j ranging over {0, 1} (only 0 for j in zeros). This is computed
// from the bits' log-probabilities in O(K³) without enumerating outputs;
// RAPPOR and uRAP give theirs in closed form (bitLogProbs), so that the
// ratio is exact at every ε rather than cancelling in 1 − p.
func WorstBitLDP(ctx context.Context, c BitChannel, zeros []int) (float64, error) {
	fixed := make([]bool, c.Bits())
	for _, j := range zeros {
		fixed[j] = true
	}
	logs := bitLogs(c)
	if o, ok := c.(oneHotBits); ok {
		return oneHotLDP(o, fixed), ctx.Err()
	}
	worst := 0.0
	for x := range c.Inputs() {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		for x2 := range c.Inputs() {
			if x == x2 {
				continue
			}
			sum := 0.0
			for j := range c.Bits() {
				p1, p0 := logs.bitLogProbs(x, j)
				q1, q0 := logs.bitLogProbs(x2, j)
				r := logRatio(p0, q0)
				if !fixed[j] {
					r = math.Max(r, logRatio(p1, q1))
				}
				sum += r
			}
			worst = math.Max(worst, sum)
		}
	}
	return worst, nil
}

// oneHotLDP is WorstBitLDP for a oneHotBits channel, in O(K). For
// x ≠ x', the bits other than x and x' have the same law under both and
// add ln 1 = 0 to the factorised ratio, so
//
//	ε(x, x') = A_x + B_{x'},
//	A_j = max_b ln P(b_j | j)/P(b_j | ¬j),  B_j = max_b ln P(b_j | ¬j)/P(b_j | j),
//
// b ranging over {0, 1} (only 0 for fixed bits), and the worst pair is
// the largest A_x plus the largest B_{x'} with x' ≠ x.
func oneHotLDP(c oneHotBits, fixed []bool) float64 {
	k := c.Bits()
	if k < 2 {
		return 0
	}
	a, b := make([]float64, k), make([]float64, k)
	best, second := math.Inf(-1), math.Inf(-1) // the two largest B, and best's index
	at := -1
	for j := range k {
		o1, o0 := c.bitLogProbs(j, j)
		t1, t0 := c.bitLogProbs((j+1)%k, j)
		a[j], b[j] = logRatio(o0, t0), logRatio(t0, o0)
		if !fixed[j] {
			a[j], b[j] = math.Max(a[j], logRatio(o1, t1)), math.Max(b[j], logRatio(t1, o1))
		}
		switch {
		case b[j] > best:
			best, second, at = b[j], best, j
		case b[j] > second:
			second = b[j]
		}
	}
	worst := 0.0
	for x := range k {
		partner := best
		if x == at {
			partner = second
		}
		worst = math.Max(worst, a[x]+partner)
	}
	return worst
}

// bitLogs returns c's bit log-probabilities: its own when it gives them,
// else the logarithms of BitProb.
func bitLogs(c BitChannel) bitLogProber {
	if l, ok := c.(bitLogProber); ok {
		return l
	}
	return bitProbLogs{c}
}

// bitProbLogs reads a BitChannel's log-probabilities off BitProb.
type bitProbLogs struct{ c BitChannel }

func (b bitProbLogs) bitLogProbs(x, j int) (l1, l0 float64) {
	p := b.c.BitProb(x, j)
	return linalg.Log(p), math.Log1p(-p)
}

// hashLDP returns local hashing's worst log-ratio of two inputs'
// probabilities of a report, exactly: a report (s, v) has probability
// kept or off under each input, so the ratio is e^ε for any pair x, x'
// that some seed's hash separates, v = H_s(x) ≠ H_s(x'), and 1 for a
// pair no seed separates. The worst is ε as soon as one pair is
// separated, which the first seeds show; 0 when none of the first 2¹⁶
// separates symbols 0 and 1 (the family then hashes all alike, which
// the splitmix64 family does not).
func hashLDP(m hasher) float64 {
	for s := range uint32(1 << 16) {
		if m.hash(s, 0) != m.hash(s, 1) {
			return -math.Log(m.low())
		}
	}
	return 0
}

// logRatio returns ln(p/q) from l = ln p and m = ln q: −Inf when p = 0
// (an outcome that cannot make the ratio worse) and +Inf when only q = 0.
func logRatio(l, m float64) float64 {
	switch {
	case math.IsInf(l, -1):
		return math.Inf(-1)
	case math.IsInf(m, -1):
		return math.Inf(1)
	}
	return l - m
}

// InvertibleInputs checks the invertibility condition of ULDP Def. 2 on
// the outputs z for which invertible(z) is true: each must be possible
// under exactly one input. It returns the first output that is not, or −1.
func InvertibleInputs(c Channel, invertible func(z int) bool) int {
	for z := range c.Outputs() {
		if !invertible(z) {
			continue
		}
		n := 0
		for x := range c.Inputs() {
			if c.Prob(x, z) > 0 {
				n++
			}
		}
		if n != 1 {
			return z
		}
	}
	return -1
}

// InvertibleBits is InvertibleInputs for bit-vector outputs: the outputs
// with one of the bits in revealing set (uRAP: a non-sensitive bit) are
// invertible and must each be possible under exactly one input. As the
// bits are independent given x, an output with bit j set is possible
// under x only if P(bit j = 1 | x) > 0, so each such bit must be possible
// under one input only. It returns the first bit that is not, or −1.
func InvertibleBits(c BitChannel, revealing []int) int {
	for _, j := range revealing {
		n := 0
		for x := range c.Inputs() {
			if c.BitProb(x, j) > 0 {
				n++
			}
		}
		if n != 1 {
			return j
		}
	}
	return -1
}

// WorstGeoInd returns the smallest ε for which c satisfies
// ε-geo-indistinguishability under the distance dist:
//
//	ε = max_z max_{x≠x'} ln( P(z|x) / P(z|x') ) / d(x, x')
//
// over every output. For a linear alphabet with d = |x−x'| it is ε per
// step; on a grid with distances in km, ε per km.
//
// An output whose column takes at most three values, all but one of them
// on at most eight inputs (k-RR, uRR, the identity), is scanned in O(K):
// its worst ratio is that of the nearest pair of inputs across two of
// its values. Any other output costs a scan of the K² pairs, with the
// inverse distances computed once (24×16 grid: about 60 ms in all; the
// scan is O(K³), so AuditMechanism bounds it on large maps).
func WorstGeoInd(ctx context.Context, c Channel, dist func(x, x2 int) float64) (float64, error) {
	k := c.Inputs()
	var inv []float64
	worst := 0.0
	col := make([]float64, k)
	for z := range c.Outputs() {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		col, _ = column(c, col, z)
		if w, ok := fewValued(col, dist, nil); ok {
			worst = math.Max(worst, w)
			continue
		}
		for x, p := range col {
			col[x] = linalg.Log(p)
		}
		if inv == nil {
			inv = inverseDistances(k, dist)
		}
		worst = math.Max(worst, pairScan(col, inv))
	}
	return worst, nil
}

// inverseDistances returns 1/d(x, x2) for every pair, 0 on the diagonal.
func inverseDistances(k int, dist func(x, x2 int) float64) []float64 {
	inv := make([]float64, k*k)
	for x := range k {
		for x2 := range k {
			if x != x2 {
				inv[x*k+x2] = 1 / dist(x, x2)
			}
		}
	}
	return inv
}

// pairScan returns max (l_x − l_x')/d(x, x') over the pairs of one
// output's log-probabilities.
func pairScan(logs, inv []float64) float64 {
	k := len(logs)
	worst := 0.0
	for x, lx := range logs {
		if math.IsInf(lx, -1) {
			continue
		}
		row := inv[x*k : (x+1)*k]
		for x2, l2 := range logs {
			// Only a larger numerator can raise the maximum; the
			// diagonal has inv 0.
			if lx > l2 {
				if r := (lx - l2) * row[x2]; r > worst {
					worst = r
				}
			}
		}
	}
	return worst
}

// fewValued returns the worst ratio of one output's probabilities when
// they take at most three values, all but the most frequent on at most
// eight inputs: the largest (ln v_i − ln v_j)/d(G_i, G_j) over pairs of
// values v_i > v_j, with d(G_i, G_j) the least distance between their
// inputs. It costs O(K), with three logarithms, and reports false on any
// other column.
func fewValued(probs []float64, dist func(x, x2 int) float64, near func(y int, skip func(x int) bool) (float64, bool)) (float64, bool) {
	const maxValues, maxSmall = 3, 8
	var vals [maxValues]float64
	var members [maxValues][]int
	var count [maxValues]int
	nv := 0
	for x, l := range probs {
		i := 0
		for i < nv && vals[i] != l {
			i++
		}
		if i == nv {
			if nv == maxValues {
				return 0, false
			}
			vals[i] = l
			nv++
		}
		count[i]++
		if count[i] <= maxSmall+1 {
			members[i] = append(members[i], x)
		}
	}
	big := -1
	for i := range nv {
		if count[i] > maxSmall {
			if big >= 0 {
				return 0, false
			}
			big = i
		}
	}
	worst := 0.0
	for i := range nv {
		for j := range nv {
			if i == j || !(vals[i] > vals[j]) {
				continue
			}
			d := groupDistance(members, count, i, j, big, len(probs), dist, near)
			worst = math.Max(worst, (linalg.Log(vals[i])-linalg.Log(vals[j]))/d)
		}
	}
	return worst, true
}

// groupDistance returns the least distance between the inputs of values i
// and j of fewValued; the members of the big value (if any) are all
// inputs outside the small groups.
func groupDistance(members [3][]int, count [3]int, i, j, big, k int, dist func(x, x2 int) float64,
	near func(y int, skip func(x int) bool) (float64, bool)) float64 {
	if j == big {
		i, j = j, i
	}
	best := math.Inf(1)
	if i != big {
		for _, x := range members[i] {
			for _, y := range members[j] {
				best = math.Min(best, dist(x, y))
			}
		}
		return best
	}
	// i is the big value: every input not in a small group.
	small := map[int]bool{}
	for g := range count {
		if g != big {
			for _, x := range members[g] {
				small[x] = true
			}
		}
	}
	if near != nil {
		// The nearest input of the big value to each y, from the offsets
		// in order of distance (k-RR's columns on a city grid: O(1)
		// instead of O(K) each).
		found := true
		for _, y := range members[j] {
			d, ok := near(y, func(x int) bool { return small[x] })
			if !ok {
				found = false
				break
			}
			best = math.Min(best, d)
		}
		if found {
			return best
		}
		best = math.Inf(1)
	}
	for _, y := range members[j] {
		for x := range k {
			if !small[x] {
				best = math.Min(best, dist(x, y))
			}
		}
	}
	return best
}

// maxAuditEntries bounds the channel entries an audit of symbol outputs
// reads, K × outputs: 2·10⁹, an alphabet of 44,721 symbols. Every entry
// is read once, at 20–40 ns on a grid (a 200×200 planar grid, 1.6·10⁹
// entries: 59 s), so the audit of a larger channel would take hours
// (2²⁴ symbols: 2.8·10¹⁴ entries) and is refused.
const maxAuditEntries = 2e9

// exactGeoIndBudget bounds the operations of AuditMechanism's exact
// pair scans (K² pairs × K outputs): about four seconds.
const exactGeoIndBudget = 4e9

// octile is the largest ratio of an 8-neighbour lattice path's length to
// the straight distance it spans, √(4 − 2√2) = 1/cos(22.5°).
var octile = math.Sqrt(4 - 2*math.Sqrt2)

// step is a move to a neighbouring cell and its length.
type step struct {
	dr, dc int
	length float64
}

// neighbourSteps returns the moves to the neighbours that follow a cell
// (each pair once) on a line of k symbols or a grid, with the grid's
// columns and rows.
func neighbourSteps(a Alphabet, k int) ([]step, int, int) {
	steps := []step{{0, 1, 0}}
	cols, rows := k, 1
	if a.Kind == KindGrid {
		steps = []step{{0, 1, 0}, {1, 0, 0}, {1, 1, 0}, {1, -1, 0}}
		cols, rows = a.Cols, a.Rows
	}
	for i, s := range steps {
		c0 := max(0, -s.dc) // the step starts in a column it can leave by
		if s.dr < rows && c0+s.dc < cols && c0 < cols {
			steps[i].length, _, _ = a.Distance(c0, s.dr*cols+c0+s.dc)
		}
	}
	return steps, cols, rows
}

// worstNeighbour returns max |l_x − l_y|/d(x, y) over neighbouring x, y
// of one output's log-probabilities, in O(K). It bounds that output's
// ε-geo-indistinguishability on a linear or grid alphabet: with L the
// worst ratio over neighbours (a true pair, so ε ≥ L) and any pair
// joined by a path of neighbours whose steps each change ln P by at most
// L times their length,
//
//   - linear, d = |x − x'|: the path of unit steps has length d, so ε = L
//     exactly;
//   - grid, 8-neighbour steps: the path is at most octile times d, so
//     L ≤ ε ≤ octile · L.
func worstNeighbour(logs []float64, steps []step, cols, rows int) float64 {
	worst := 0.0
	// Step by step and row by row, over the cells whose neighbour is on
	// the grid: no division nor bounds test a pair.
	for _, s := range steps {
		c0, c1 := max(0, -s.dc), min(cols, cols-s.dc)
		for r := 0; r+s.dr < rows; r++ {
			row, next := logs[r*cols:(r+1)*cols], logs[(r+s.dr)*cols:(r+s.dr+1)*cols]
			for c := c0; c < c1; c++ {
				lx, l2 := row[c], next[c+s.dc]
				if lx == l2 { // also both −Inf
					continue
				}
				d := lx - l2
				if d < 0 { // plain comparisons: math.Abs and Max weigh on K²
					d = -d
				}
				if d /= s.length; d > worst {
					worst = d
				}
			}
		}
	}
	return worst
}

// An Audit is what a mechanism instance really guarantees, read off its
// channel rather than its formula (package core's doc, "Mechanisms").
type Audit struct {
	// LDP is the worst ε-LDP ratio: over every output, or over the
	// protected outputs only when Protected (ULDP mechanisms). +Inf when
	// some output rules inputs out.
	LDP       float64
	Protected bool
	// Invertible, for ULDP mechanisms, is −1 when every invertible output
	// has exactly one possible input, else the first output (uRAP: the
	// first non-protected bit) that has not.
	Invertible int
	// GeoInd is the worst ε-geo-indistinguishability per GeoUnit (km or
	// step); NaN without a metric or for bit-vector outputs. On a grid too
	// large for the exact O(K³) scan, GeoInd is a certified lower bound
	// and GeoIndUpper a certified upper bound (worstNeighbour); else
	// GeoIndUpper equals GeoInd.
	GeoInd, GeoIndUpper float64
	GeoUnit             string
	// QualityMean and QualityWorst are the expected distance between the
	// true and the reported symbol, averaged over inputs (uniform prior)
	// and for the worst input; NaN without a metric or for bit vectors.
	QualityMean, QualityWorst float64
	// Underflow is true when an infinite LDP or geo-indistinguishability
	// ratio comes from a probability that the mechanism's formula makes
	// positive (a positiveChannel) but that underflows to 0 in float64
	// at this ε: some output then rules out far inputs in the channel
	// privmap computes, samples and estimates with, though the formula's
	// ratio is finite. A smaller ε makes the ratio finite again.
	Underflow bool
}

// AuditMechanism audits m on alphabet a. It costs O(K³) for symbol
// outputs (the geo-indistinguishability ratios) and O(K³) for bit
// vectors; cancelling ctx stops it with ctx's error.
func AuditMechanism(ctx context.Context, m Mechanism, a Alphabet) (Audit, error) {
	au, err := auditMechanism(ctx, m, a)
	if _, positive := m.(positiveChannel); positive {
		// A ULDP mechanism's unprotected outputs rule inputs out by
		// design: its geo-indistinguishability over every output is
		// infinite whatever ε, and only its protected LDP ratio can
		// underflow.
		_, uldp := m.(utilityOptimized)
		au.Underflow = math.IsInf(au.LDP, 1) || !uldp && math.IsInf(au.GeoInd, 1)
	}
	return au, err
}

// auditMechanism is AuditMechanism without the underflow mark.
func auditMechanism(ctx context.Context, m Mechanism, a Alphabet) (Audit, error) {
	au := Audit{Invertible: -1, GeoInd: math.NaN(), GeoIndUpper: math.NaN(), QualityMean: math.NaN(), QualityWorst: math.NaN()}
	if p, ok := m.(Personalized); ok {
		// The common mechanism on the extended alphabet, whose tag symbols
		// have no place on the map: no metric.
		return AuditMechanism(ctx, p.Common(), Alphabet{Kind: KindCategorical, Size: p.Inputs()})
	}
	u, uldp := m.(utilityOptimized)
	switch c := m.(type) {
	case hasher:
		au.LDP = hashLDP(c)
		return au, ctx.Err()
	case interface{ designLDP() float64 }:
		au.LDP = c.designLDP()
		return au, ctx.Err()
	case BitChannel:
		var zeros []int
		if uldp {
			au.Protected = true
			for j := range c.Bits() {
				if !u.IsSensitive(j) {
					zeros = append(zeros, j)
				}
			}
			au.Invertible = InvertibleBits(c, zeros)
		}
		var err error
		au.LDP, err = WorstBitLDP(ctx, c, zeros)
		return au, err
	case Channel:
		if entries := float64(c.Inputs()) * float64(c.Outputs()); entries > maxAuditEntries {
			return au, &TooLargeError{What: "the privacy audit",
				Need:  fmt.Sprintf("a pass over the %d×%d channel (%.2g entries)", c.Inputs(), c.Outputs(), entries),
				Limit: fmt.Sprintf("%.0g entries (a %d-symbol alphabet, a minute or two)", maxAuditEntries, int(math.Sqrt(maxAuditEntries)))}
		}
		var keep func(int) bool
		if uldp {
			au.Protected = true
			keep = u.IsSensitive
			au.Invertible = InvertibleInputs(c, func(z int) bool { return !u.IsSensitive(z) })
		}
		if _, unit, ok := a.Distance(0, 0); ok {
			au.GeoUnit = unit
			return au, scanColumns(ctx, c, a, keep, exactGeoIndBudget, &au)
		}
		var err error
		au.LDP, err = worstLDP(ctx, c, keep)
		return au, err
	}
	return au, ctx.Err()
}

// scanColumns fills au's LDP, geo-indistinguishability and quality loss
// for a channel c on a metric alphabet in one pass over its outputs:
// each column P(z | ·) is read once, from m's likelihood (k-RR's is two
// values, not K exponentials), with its logarithms, and serves all
// three. Geo-indistinguishability is exact on few-valued columns and by
// pair scans while those stay within budget operations; beyond, the
// other columns give certified neighbour bounds (see neighbourSteps), and
// au.GeoInd and au.GeoIndUpper bound the worst ratio from both sides.
// keep, if not nil, picks the outputs of the LDP ratio.
func scanColumns(ctx context.Context, c Channel, a Alphabet, keep func(z int) bool, budget float64, au *Audit) error {
	k := c.Inputs()
	au.GeoInd, au.GeoIndUpper = 0, 0
	dist, offsets := distanceOf(a)
	if k != a.Len() {
		offsets = nil // a channel off the grid's cells reads distances one by one
	}
	var inv []float64
	if float64(k)*float64(k)*float64(c.Outputs()) <= budget {
		inv = inverseDistances(k, dist)
	}
	steps, cols, rows := neighbourSteps(a, k)
	factor := 1.0
	if a.Kind == KindGrid {
		factor = octile * (1 + 1e-12)
	}
	col, logs, quality := make([]float64, k), make([]float64, k), make([]float64, k)
	near := nearestOn(a, k)
	// The quality loss is the distance from the input to the output cell:
	// none where the outputs are not the alphabet's symbols (the Hadamard
	// response's K').
	onCells := c.Outputs() == a.Len()
	for z := range c.Outputs() {
		if err := ctx.Err(); err != nil {
			return err
		}
		col, scale := column(c, col, z)
		lo, hi := math.Inf(1), 0.0
		p := math.Exp(scale)
		for _, v := range col {
			lo, hi = min(lo, v), max(hi, v)
		}
		if onCells {
			addQuality(quality, col, p, z, a, offsets, dist)
		}
		if hi > 0 && (keep == nil || keep(z)) {
			au.LDP = math.Max(au.LDP, linalg.Log(hi)-linalg.Log(lo))
		}
		if w, ok := fewValued(col, dist, near); ok {
			au.GeoInd, au.GeoIndUpper = math.Max(au.GeoInd, w), math.Max(au.GeoIndUpper, w)
			continue
		}
		for x, v := range col {
			logs[x] = linalg.Log(v)
		}
		if inv != nil {
			w := pairScan(logs, inv)
			au.GeoInd, au.GeoIndUpper = math.Max(au.GeoInd, w), math.Max(au.GeoIndUpper, w)
			continue
		}
		w := worstNeighbour(logs, steps, cols, rows)
		au.GeoInd, au.GeoIndUpper = math.Max(au.GeoInd, w), math.Max(au.GeoIndUpper, w*factor)
	}
	if onCells {
		au.QualityMean, au.QualityWorst = floats.Sum(quality)/float64(k), floats.Max(quality)
	}
	return nil
}

// addQuality adds output z's share of each input's expected distance,
// quality[x] += col[x]·p·d(x, z). On a grid it reads the distances row
// by row from offsets, the distances of every (row, column) offset (no
// call nor division an entry: a third of a city grid's audit went to
// them); elsewhere (offsets nil) it calls dist.
func addQuality(quality, col []float64, p float64, z int, a Alphabet, offsets []float64, dist func(x, y int) float64) {
	if offsets == nil {
		for x, v := range col {
			quality[x] += v * p * dist(x, z)
		}
		return
	}
	cols, rz, cz := a.Cols, z/a.Cols, z%a.Cols
	for r := range a.Rows {
		dr := r - rz
		if dr < 0 {
			dr = -dr
		}
		dists, q, v := offsets[dr*cols:(dr+1)*cols], quality[r*cols:(r+1)*cols], col[r*cols:(r+1)*cols]
		for c := range cols {
			dc := c - cz
			if dc < 0 {
				dc = -dc
			}
			q[c] += v[c] * p * dists[dc]
		}
	}
}

// nearWindow is the half-side of the window of offsets nearestOn
// searches first.
const nearWindow = 4

// nearestOn returns, on a grid, a search for the nearest input to y
// outside a small set of inputs: the offsets of the (2·nearWindow+1)²
// window in order of distance, the first one on the grid and outside
// the set giving the answer when no input beyond the window is nearer
// (the shorter cell side·(nearWindow+1)). It returns nil on other
// alphabets.
func nearestOn(a Alphabet, k int) func(y int, skip func(x int) bool) (float64, bool) {
	if a.Kind != KindGrid || k != a.Rows*a.Cols {
		return nil
	}
	type offset struct {
		dr, dc int
		d      float64
	}
	var offs []offset
	for dr := -nearWindow; dr <= nearWindow; dr++ {
		for dc := -nearWindow; dc <= nearWindow; dc++ {
			if dr != 0 || dc != 0 {
				d, _, _ := a.Distance(0, abs(dr)*a.Cols+abs(dc))
				offs = append(offs, offset{dr, dc, d})
			}
		}
	}
	slices.SortStableFunc(offs, func(x, y offset) int { return cmp.Compare(x.d, y.d) })
	w, h := a.CellSides()
	beyond := min(w, h) * (nearWindow + 1)
	return func(y int, skip func(x int) bool) (float64, bool) {
		ry, cy := y/a.Cols, y%a.Cols
		for _, o := range offs {
			r, c := ry+o.dr, cy+o.dc
			if r < 0 || r >= a.Rows || c < 0 || c >= a.Cols || skip(r*a.Cols+c) {
				continue
			}
			return o.d, o.d <= beyond
		}
		return 0, false
	}
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

// distanceOf returns the distance of a as a function and, on a grid, the
// table of the distances of every (row, column) offset, dr·Cols + dc,
// that it reads, so that the audits' K² distances are lookups (nil
// elsewhere).
func distanceOf(a Alphabet) (func(x, y int) float64, []float64) {
	if a.Kind != KindGrid {
		return func(x, y int) float64 { d, _, _ := a.Distance(x, y); return d }, nil
	}
	cols := a.Cols
	table := make([]float64, a.Rows*cols)
	for dr := range a.Rows {
		for dc := range cols {
			table[dr*cols+dc], _, _ = a.Distance(0, dr*cols+dc)
		}
	}
	return func(x, y int) float64 {
		dr, dc := x/cols-y/cols, x%cols-y%cols
		if dr < 0 {
			dr = -dr
		}
		if dc < 0 {
			dc = -dc
		}
		return table[dr*cols+dc]
	}, table
}

// column sets dst to output z's column P(z | ·) up to the factor e^scale:
// from the mechanism's likelihood when c is one (k-RR's is two values,
// not K exponentials), else entry by entry.
func column(c Channel, dst []float64, z int) ([]float64, float64) {
	if m, ok := c.(Mechanism); ok {
		return m.Likelihood(dst, SymbolReport(z))
	}
	for x := range dst {
		dst[x] = c.Prob(x, z)
	}
	return dst, 0
}
