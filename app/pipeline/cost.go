package pipeline

import (
	"cmp"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/privmap/privmap/app/human"
	"github.com/privmap/privmap/app/interval"
	"github.com/privmap/privmap/core"
)

// A Cost is what a run is expected to take on a machine like the
// project's (docs/PERFORMANCE.md), by a rough model: the order of
// magnitude, for warning before a long run, not a promise.
type Cost struct {
	// Time is the expected duration of the whole run.
	Time time.Duration
	// Parts name the work that dominates, most expensive first.
	Parts []string
}

// Long reports whether the run is worth a warning: over a minute.
func (c Cost) Long() bool { return c.Time > time.Minute }

// The model's constants, measured on the project's machine (2 cores,
// docs/PERFORMANCE.md): Shokri's solver on the 24×16 grid (4 s, K = 384,
// K³ products, about a hundred iterations); a planar mechanism's EM step
// (two FFTs on the (2m+1)² torus: 14 ms on NYC's 94×96 grid, N log₂ N =
// 5.6·10⁵); the exact EMD (0.35 s on 7.7·10⁶ cells, issue 31's network
// simplex); sanitising a user (about 1 µs). Below a second the fixed
// costs dominate (measured on San Francisco's 22×15 grid and UCI Adult's
// 120 symbols, issue 31): a planar EM step costs at least
// planarStepFixed, an estimate estimateFloor; small problems take their
// EM steps over dense likelihood columns (core.ColumnBudget) at
// columnStepRate multiply-adds a second, the inversions build each
// channel densely (denseEntry a cell) and factorise it, and the average
// of planar mechanisms computes each one's lattice tables again
// (latticeExp a lattice point).
const (
	shokriAt384   = 4.0  // s
	planarStepPer = 6e-9 // s per N log₂ N, [IBU]_R's mechanisms alone (their own products and Newton steps)
	// s per N log₂ N of the shared planar products (GIBU, corrected EM,
	// the average channel, the inversions): issue 31's AVX transforms,
	// GIBU 2.1–2.4 s on New York
	planarBatchPer = 2.5e-9
	emdPerCell     = 5e-8 // s per cell of the transportation problem
	userCost       = 1e-6 // s per user
	// simUserCost is a user of corrected EM's simulations of α's
	// choice (core's SimulateGroups and the user's share of grouping
	// and setting up the simulation's model): on UCI Adult's 120
	// symbols, where the bias corrections themselves are nothing, three
	// simulations of 32,561 users took 0.047 s in all.
	simUserCost  = 5e-7
	bigSteps     = 1000 // EM steps when Newton's dense Hessian is out of reach
	smallSteps   = 200  // EM and Newton steps otherwise
	averageSteps = 300  // [IBU]_M's steps (241–308 measured, SF and NYC)
	// EM and Newton steps when every channel is two-valued (k-RR, the
	// identity) and Newton's Hessian dense: 20 on UCI Adult.
	twoValuedSteps = 40
	// groups × K² beyond which the model counts bigSteps: half core's
	// budget of a dense Newton step (reports × |F|² on the free face F).
	denseBudget   = core.NewtonBudget / 2
	smallRunFloor = 0.05                 // s: nothing is free
	stepOverhead  = 2.0e-9               // s per K per mechanism and step (operators, vectors)
	groupPerUser  = 1.0                  // at most one group per user
	emdShare      = 0.25                 // the truth's support, as a share of K, when unknown
	secondsPerDay = 86400.0              // for the printout
	denseSymbols  = core.MaxDenseSymbols // the inversions' dense limit
	luRate        = 5e9                  // operations a second of an LU factorisation
	gmresProducts = 250                  // products of a matrix-free inversion
	// Corrected EM's bias correction (core/cem_bias.go), measured on
	// New York's 9,024 cells (docs/PERFORMANCE.md): the K×K inversion,
	// K³ in 17 s; one transform of the planar users' passes, seconds per
	// N log₂ N of the torus on one core (42 s for both passes there); the
	// other users' columns, multiply-adds a second per core.
	cemCubeRate     = 4.3e10
	cemTransformPer = 0.5e-9
	columnRate      = 1.5e10

	planarStepFixed = 2e-4              // s a planar mechanism's EM step, at least
	estimateFloor   = 0.003             // s an estimate, at least
	columnBudget    = core.ColumnBudget // groups × K of dense columns
	columnStepRate  = 2.5e9             // multiply-adds a second over dense columns
	denseEntry      = 3e-8              // s a dense channel cell
	latticeExp      = 2.5e-8            // s a planar lattice point
	latticeLog      = 40.0              // −ln of a lattice tail, ≈ core's radius·ε·cell
)

// EstimateCost returns what req is expected to cost: building its
// mechanisms, sanitising its users, and for every method the estimate
// and the exact EMD against the truth.
func EstimateCost(req Request) Cost {
	s := req.Study
	k := float64(s.Alphabet.Len())
	n := float64(req.Users.Count())
	var parts []costPart
	if shokri := countKinds(s, func(k core.Kind) bool { return k.Solved }); shokri > 0 {
		secs := float64(shokri) * shokriSeconds(k)
		parts = append(parts, costPart{secs, fmt.Sprintf("Shokri's linear program on %s symbols (%d of them)", human.Thousands(int(math.Round(k))), shokri)})
	}
	parts = append(parts, costPart{n * userCost, fmt.Sprintf("sanitising %s users", human.Thousands(int(math.Round(n))))})
	support := truthSupport(req.Users.Truth, k)
	for _, method := range req.Methods {
		parts = append(parts, methodCost(method, s, k, n, req.Options.CEM.Simulations()))
		if req.CI.Level > 0 {
			parts = append(parts, intervalCost(method, s, k, n, req.CI))
		}
		if s.Alphabet.Kind == core.KindGrid {
			parts = append(parts, costPart{support * k * emdPerCell, fmt.Sprintf("the exact EMD of %s on %s × %s cells", method, human.Thousands(int(math.Round(support))), human.Thousands(int(math.Round(k))))})
		}
	}
	return costOf(parts)
}

// A MethodCost is what one estimator is expected to cost on a request,
// said before it runs: its time (the estimate, its intervals when the
// request asks for them, and its exact EMD against the truth when the
// request has one), its largest working memory (0 when small), and why it
// would be refused on this machine (core.Study.Fits), nil when it would
// not.
type MethodCost struct {
	Method  core.Method
	Time    time.Duration
	Bytes   float64
	Refused error
}

// MethodCosts returns the cost of each of req's methods, by
// EstimateCost's model.
func MethodCosts(req Request) []MethodCost {
	s := req.Study
	k := float64(s.Alphabet.Len())
	n := float64(req.Users.Count())
	support := truthSupport(req.Users.Truth, k)
	out := make([]MethodCost, 0, len(req.Methods))
	for _, m := range req.Methods {
		secs := methodCost(m, s, k, n, req.Options.CEM.Simulations()).secs
		if req.CI.Level > 0 {
			secs += intervalCost(m, s, k, n, req.CI).secs
		}
		if s.Alphabet.Kind == core.KindGrid && req.Users.Truth != nil {
			secs += support * k * emdPerCell
		}
		out = append(out, MethodCost{Method: m, Time: time.Duration(math.Min(secs, 1e6) * float64(time.Second)),
			Bytes: m.Memory(int(k)), Refused: s.Fits(m)})
	}
	return out
}

// String says the cost in words: "about 2 min and 650 MB of memory".
func (c MethodCost) String() string {
	s := "about " + seconds(c.Time.Seconds())
	if c.Bytes >= 1e8 {
		s += " and " + human.Bytes(c.Bytes) + " of memory"
	}
	return s
}

// shokriSeconds is the expected time of building one Shokri mechanism on
// k symbols: its linear program grows as K³.
func shokriSeconds(k float64) float64 { return shokriAt384 * math.Pow(k/384, 3) }

// A costPart is one piece of work of a run and its expected seconds.
type costPart struct {
	secs float64
	what string
}

// costOf adds the parts up and names the three that matter (a tenth of
// the whole or more), most expensive first.
func costOf(parts []costPart) Cost {
	total := smallRunFloor
	for _, p := range parts {
		total += p.secs
	}
	slices.SortStableFunc(parts, func(a, b costPart) int { return cmp.Compare(b.secs, a.secs) })
	var names []string
	for _, p := range parts {
		if len(names) == 3 || p.secs < total/10 {
			break
		}
		names = append(names, p.what+" ("+seconds(p.secs)+")")
	}
	return Cost{Time: time.Duration(math.Min(total, 1e6) * float64(time.Second)), Parts: names}
}

// countKinds returns how many of s's mechanisms are of a kind for which
// is reports true.
func countKinds(s *core.Study, is func(core.Kind) bool) int {
	c := 0
	for _, m := range s.Mechanisms {
		if k, ok := m.Kind.Info(); ok && is(k) {
			c++
		}
	}
	return c
}

// methodCost returns what one estimate of s by method is expected to
// cost, in steps of the EM map or products of the channel, by the shape
// of its work (core.Estimator.Cost):
//
//   - GIBU and its kin: a thousand steps when Newton's dense Hessian is
//     out of reach (EM, then conjugate gradients), else two hundred;
//   - [IBU]_M: the same steps of the average channel, whose planar
//     mechanisms are one convolution;
//   - [IBU]_R: each mechanism's own steps, the mechanisms on every core;
//   - the inversions: an LU factorisation up to 4,096 symbols, beyond
//     that a few hundred products of the average channel (GMRES), or of
//     each mechanism's for [INV]_R;
//   - the empirical ULDP estimator: a pass over the reports.
func methodCost(method core.Method, s *core.Study, k, n float64, sims int) costPart {
	c := methodWork(method, s, k, n, sims)
	c.secs += estimateFloor
	return c
}

// methodWork is methodCost without the floor.
func methodWork(method core.Method, s *core.Study, k, n float64, sims int) costPart {
	steps := float64(smallSteps)
	mechs := float64(len(s.Mechanisms))
	switch {
	case math.Min(n*groupPerUser, k*mechs)*k*k > denseBudget:
		steps = bigSteps
	case countKinds(s, func(k core.Kind) bool { return k.TwoValued }) == len(s.Mechanisms):
		steps = twoValuedSteps
	}
	planar := float64(countKinds(s, func(k core.Kind) bool { return k.Convolution }))
	cores := float64(max(1, runtime.GOMAXPROCS(0)))
	info, _ := method.Info()
	var per float64
	switch info.Cost {
	case core.CostEMAverage:
		// Dense columns of the average channel when they fit, else
		// each mechanism's own products, a planar one's four transforms.
		if per = 2 * k * k / columnStepRate; k*k > columnBudget {
			per = stepCost(s, k, mechs, 2*planar, cores, planarBatchPer)
		}
		steps = averageSteps
		return costPart{steps*per + latticeCost(s), fmt.Sprintf("%s: about %s steps of %s", method, human.Thousands(int(math.Round(steps))), seconds(per))}
	case core.CostEMEach:
		per = (stepCost(s, k, mechs-planar, 0, 1, planarStepPer) + stepCost(s, k, 0, 2*planar, 1, planarStepPer)) / cores
	case core.CostInversion:
		return inversionCost(method, s, k, 1, stepCost(s, k, mechs, math.Min(planar, 1), cores, planarBatchPer), latticeCost(s))
	case core.CostInversionEach:
		return inversionCost(method, s, k, mechs, (stepCost(s, k, mechs-planar, 0, 1, planarBatchPer)+stepCost(s, k, 0, planar, 1, planarBatchPer))/cores, 0)
	case core.CostPass:
		return costPart{n * userCost, fmt.Sprintf("%s: a pass over %s reports", method, human.Thousands(int(math.Round(n))))}
	case core.CostCorrectedEM:
		em := steps * modelStep(s, k, n, mechs, planar, cores)
		return cemCost(method, s, n, sims, em, cores)
	default:
		per = modelStep(s, k, n, mechs, planar, cores)
	}
	return costPart{steps * per, fmt.Sprintf("%s: about %s steps of %s", method, human.Thousands(int(math.Round(steps))), seconds(per))}
}

// modelStep is one EM step of GIBU's model (core.newModel): a
// mechanism whose groups × K fit core's column budget is stepped over
// dense likelihood columns (2·groups·K multiply-adds), the others by
// their structured products, where the planar mechanisms of one grid
// share their transforms (2J + 2 for J of them, each alone taking 4);
// a planar mechanism whose columns would cost more than its two
// transforms (planarWork) takes them.
func modelStep(s *core.Study, k, n, mechs, planar, cores float64) float64 {
	groups := modelGroups(k, n, mechs)
	switch {
	case inColumns(s, k, groups, planar):
		return 2 * mechs * groups * k / columnStepRate
	case groups*k > columnBudget:
		return stepCost(s, k, mechs, (planar+1)/2*math.Min(planar, 1), cores, planarBatchPer)
	}
	return stepCost(s, k, planar, (planar+1)/2, cores, planarBatchPer) + 2*(mechs-planar)*groups*k/columnStepRate
}

// modelGroups is the groups of one mechanism's users in GIBU's model of
// n users over k symbols and mechs mechanisms: at most one a user, and
// at most one a symbol.
func modelGroups(k, n, mechs float64) float64 {
	return math.Min(n*groupPerUser/math.Max(1, mechs), k)
}

// inColumns reports whether GIBU's model of s steps every mechanism of
// groups groups over likelihood columns (modelStep), where Newton's
// Hessian on the face is formed from their entries: within core's
// column budget, and for planar mechanisms no dearer than their
// transforms.
func inColumns(s *core.Study, k, groups, planar float64) bool {
	return groups*k <= columnBudget && (planar == 0 || groups*k <= planarWork(s))
}

// planarWork is the multiply-adds of a planar mechanism's product as
// core counts them: two FFTs of 5·N log₂ N on its torus of N points.
func planarWork(s *core.Study) float64 {
	a := s.Alphabet
	if a.Kind != core.KindGrid {
		return math.Inf(1)
	}
	side := float64(2*max(a.Cols, a.Rows) + 1)
	nn := side * side
	return 10 * nn * math.Log2(nn)
}

// intervalCost is the cost of ci's intervals of an estimate by method
// (interval.Of, by the method CI.MethodFor chooses), measured on the
// project's machine (docs/PERFORMANCE.md):
//
//   - the bootstrap: B replicates of bootReplicate estimates each, as
//     a replicate starts from the estimate (GIBU's replicates on New
//     York 1.0–1.35 s against the estimate's 2.2 s; [IBU]_M's on San
//     Francisco 0.035 s against 0.077 s); corrected EM's keep the
//     estimate's α, without the simulations that chose it;
//   - the profile likelihood: profileSteps steps of GIBU's model a
//     symbol where Newton's Hessian is formed densely from likelihood
//     columns (San Francisco's 345 cells: 31–54 ms a cell), and
//     profileCGSteps where its steps are conjugate gradients on the
//     planar mechanisms' transforms (New York: 2% of the cells in
//     290 s);
//   - the windowed profile: small dense solves over core.LocalRows
//     rows at the cells the estimate supports (localRowSecs a row),
//     and on maps of at most core.LocalExactZeros cells the exact
//     profile's searches at the cells at 0;
//   - Fisher's information: the K × K matrix from the reports' columns
//     and its factorisation.
func intervalCost(method core.Method, s *core.Study, k, n float64, ci interval.CI) costPart {
	ci = ci.WithDefaults()
	mechs := float64(len(s.Mechanisms))
	planar := float64(countKinds(s, func(k core.Kind) bool { return k.Convolution }))
	cores := float64(max(1, runtime.GOMAXPROCS(0)))
	switch ci.MethodFor(method, s) {
	case core.IntervalProfile:
		secs := profileSecs(s, k, n, mechs, planar, cores)
		return costPart{secs, fmt.Sprintf("%s's profile intervals: a few solves of the likelihood for each of %s symbols", method, human.Thousands(int(math.Round(k))))}
	case core.IntervalLocalProfile:
		secs := k * localSupport * float64(core.LocalRows(s)) * localRowSecs / cores
		what := fmt.Sprintf("%s's windowed profile intervals: a few small solves for each of the %s cells the estimate supports", method, human.Thousands(int(math.Round(k))))
		if k <= core.LocalExactZeros {
			secs += localExactZeros * profileSecs(s, k, n, mechs, planar, cores)
			what += ", the exact profile's at its cells at 0"
		}
		return costPart{secs, what}
	case core.IntervalFisher:
		groups := math.Min(n*groupPerUser, k*mechs)
		secs := 2*groups*k*k/columnStepRate + k*k*k/luRate
		return costPart{secs, fmt.Sprintf("%s's Fisher intervals: the %s × %s information matrix", method, human.Thousands(int(math.Round(k))), human.Thousands(int(math.Round(k))))}
	}
	b := float64(ci.Replicates)
	est := methodCost(method, s, k, n, 0).secs
	return costPart{b * bootReplicate * est, fmt.Sprintf("%s's bootstrap intervals: %s replicates", method, human.Thousands(ci.Replicates))}
}

// profileSecs is the profile likelihood's time (intervalCost).
func profileSecs(s *core.Study, k, n, mechs, planar, cores float64) float64 {
	steps := float64(profileSteps)
	if !inColumns(s, k, modelGroups(k, n, mechs), planar) {
		steps = profileCGSteps
	}
	return k * steps * modelStep(s, k, n, mechs, planar, cores)
}

// The interval model's constants (intervalCost).
const (
	bootReplicate  = 0.55 // estimates a bootstrap replicate
	profileSteps   = 42   // steps of the model a symbol, Newton's Hessian dense
	profileCGSteps = 450  // … Newton's steps by conjugate gradients
	// The windowed profile: a cell of the support takes localRowSecs
	// of a core for each row of its problem (core.LocalRows: New York's
	// 2,770 rows 26 ms a supported cell, San Francisco's 3,218 49 ms),
	// the support about localSupport of the map (New York 18%, San
	// Francisco 56%), and on small maps the exact profile's searches at
	// the cells at 0 about localExactZeros of the whole profile's time.
	localRowSecs    = 12e-6
	localSupport    = 0.25
	localExactZeros = 0.4
)

// latticeCost is the time of computing the lattice tables of s's planar
// mechanisms (core.PlanarGeometric): (2r+1)² points each for a radius
// r ≈ latticeLog/(ε·cell).
func latticeCost(s *core.Study) float64 {
	secs := 0.0
	for _, m := range s.Mechanisms {
		if k, ok := m.Kind.Info(); ok && k.Convolution && m.Epsilon > 0 && s.Alphabet.CellKm > 0 {
			r := latticeLog / (m.Epsilon * s.Alphabet.CellKm)
			secs += latticeExp * (2*r + 1) * (2*r + 1)
		}
	}
	return secs
}

// cemCost is corrected EM's cost: the EM estimate em and a bias
// correction (core.Study.CorrectedEMCost: the K×K inversion at
// cemCubeRate, the planar users' transforms at cemTransformPer each per
// N log₂ N of the torus, other users' columns at columnRate), once for
// the data and once for each of the sims simulations that choose α,
// whose users' reports are drawn again.
func cemCost(method core.Method, s *core.Study, n float64, sims int, em, cores float64) costPart {
	c := s.CorrectedEMCost(int(n), sims)
	bias := c.Cube/cemCubeRate + c.ColumnWork/columnRate/cores
	if c.Torus > 0 {
		nn := float64(c.Torus)
		bias += c.Transforms * cemTransformPer * nn * math.Log2(nn) / cores
	}
	what := "the EM estimate and its bias correction"
	switch {
	case sims == 1:
		what = "2 EM estimates and bias corrections (the data's, and a simulation choosing α)"
	case sims > 1:
		what = fmt.Sprintf("%d EM estimates and bias corrections (the data's, and %d simulations choosing α)", c.Corrections, sims)
	}
	simulation := float64(sims) * n * simUserCost
	k := s.Alphabet.Len()
	return costPart{float64(c.Corrections)*(em+bias) + simulation, fmt.Sprintf("%s: %s, each inverting a %s × %s matrix", method, what, human.Thousands(k), human.Thousands(k))}
}

// inversionCost is the cost of an inversion estimator over channels
// channels: up to 4,096 symbols each built densely (K² cells at
// denseEntry) and factorised by LU ((2/3)K³ operations at luRate), else
// gmresProducts products of half an EM step each; extra is the time of
// building the average channel's mechanisms.
func inversionCost(method core.Method, s *core.Study, k, channels, step, extra float64) costPart {
	if k <= denseSymbols {
		secs := channels*(2.0/3*k*k*k/luRate+k*k*denseEntry) + extra
		return costPart{secs, fmt.Sprintf("%s: an LU factorisation of %s symbols", method, human.Thousands(int(math.Round(k))))}
	}
	return costPart{gmresProducts*step/2 + extra, fmt.Sprintf("%s: about %d products of the channel (GMRES)", method, gmresProducts)}
}

// stepCost returns the seconds of one EM step over k symbols of
// mechanisms (structured channels, O(K) a step) and planar
// planar-mechanism equivalents (two FFTs each on their (2m+1)² torus),
// shared among cores, at per seconds per N log₂ N of a transform.
func stepCost(s *core.Study, k, mechanisms, planar, cores, per float64) float64 {
	step := k * mechanisms * stepOverhead
	if a := s.Alphabet; a.Kind == core.KindGrid {
		side := float64(2*max(a.Cols, a.Rows) - 1)
		nn := side * side
		step += planar * (per*nn*math.Log2(nn) + planarStepFixed)
	}
	return step / math.Max(1, math.Min(cores, mechanisms))
}

// truthSupport returns the number of symbols the truth gives mass, or a
// quarter of k when it is not known.
func truthSupport(truth []float64, k float64) float64 {
	if truth == nil {
		return math.Min(k, math.Max(1, emdShare*k))
	}
	support := 0.0
	for _, p := range truth {
		if p > 0 {
			support++
		}
	}
	return support
}

// Coarser returns the cheaper alternative to a long run on a grid: the
// same run on cells twice as wide (a quarter of the symbols), as its
// alphabet and cost. It reports false unless req is on a grid of at least
// 2×2 cells.
func Coarser(req Request) (core.Alphabet, Cost, bool) {
	a := req.Study.Alphabet
	if a.Kind != core.KindGrid || a.Cols < 2 || a.Rows < 2 {
		return a, Cost{}, false
	}
	c := a
	c.Cols, c.Rows = (a.Cols+1)/2, (a.Rows+1)/2
	c.CellKm = 2 * a.CellKm
	c.CellWidthKm, c.CellHeightKm = 0, 0
	s := *req.Study
	s.Alphabet = c
	coarse := req
	coarse.Study = &s
	coarse.Users.Truth = nil // unknown until the data are gridded again
	return c, EstimateCost(coarse), true
}

// String says the cost in words: "about 12 min: …".
func (c Cost) String() string {
	s := "about " + seconds(c.Time.Seconds())
	if len(c.Parts) > 0 {
		s += ": " + strings.Join(c.Parts, "; ")
	}
	return s
}

// seconds prints a duration in the unit that suits it.
func seconds(s float64) string {
	switch {
	case s < 1:
		return fmt.Sprintf("%.0f ms", math.Max(1, s*1000))
	case s < 90:
		return fmt.Sprintf("%.0f s", s)
	case s < 90*60:
		return fmt.Sprintf("%.0f min", s/60)
	case s < 2*secondsPerDay:
		return fmt.Sprintf("%.0f h", s/3600)
	}
	return fmt.Sprintf("%.0f days", s/secondsPerDay)
}

// RunSeconds returns the expected seconds of one deployment of n users
// on s estimated by method (sims simulations for corrected EM's α):
// the users sanitised and the estimate, and with emd its exact EMD
// against truth measured on a grid.
func RunSeconds(method core.Method, s *core.Study, n float64, sims int, truth []float64, emd bool) float64 {
	k := float64(s.Alphabet.Len())
	secs := methodCost(method, s, k, n, sims).secs + n*userCost
	if emd && s.Alphabet.Kind == core.KindGrid {
		secs += truthSupport(truth, k) * k * emdPerCell
	}
	return secs
}

// PartCost returns the cost of one part of work, what, taking secs
// seconds.
func PartCost(secs float64, what string) Cost { return costOf([]costPart{{secs, what}}) }
