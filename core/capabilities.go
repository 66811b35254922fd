package core

import "math/rand/v2"

// The capabilities of mechanisms, declared together: a Mechanism
// (mechanism.go) gives likelihoods; the interfaces below are what
// simulation, the estimators and the audit ask of a mechanism beyond
// that, each checked with a type assertion on the interface, never on a
// concrete mechanism. A kind's record (Kind.Caps, kinds.go) states the
// capabilities of its reports that decide which estimators apply;
// TestKindCaps holds the two in step.
//
// The estimators' own models (emModel, term, curvedModel, facer,
// projector) are not capabilities of mechanisms and stay with their
// algorithms.

// A Channel has symbol outputs and gives their probabilities. Every
// mechanism with symbol outputs is a Channel.
type Channel interface {
	// Inputs returns the size K of the input alphabet.
	Inputs() int
	// Outputs returns the number of output symbols.
	Outputs() int
	// Prob returns P(z | x).
	Prob(x, z int) float64
}

// A BitChannel has K-bit outputs whose bits are independent given the
// input, as RAPPOR and uRAP.
type BitChannel interface {
	// Inputs returns the size K of the input alphabet.
	Inputs() int
	// Bits returns the length of a report.
	Bits() int
	// BitProb returns P(bit j = 1 | x).
	BitProb(x, j int) float64
}

// A Sampler draws symbol reports: every mechanism with symbol outputs.
type Sampler interface {
	// Sample returns the report of input x.
	Sample(rng *rand.Rand, x int) int
}

// A BitSampler draws bit-vector reports, as RAPPOR and uRAP do.
type BitSampler interface {
	// Bits returns the length of a report.
	Bits() int
	// SampleBits returns the report of input x.
	SampleBits(rng *rand.Rand, x int) Bits
}

// A hasher is local hashing (OLH, BLH; olh.go): a report is the seed of
// a hash of the symbols into g values and a value, likely for the
// symbols the seed's hash sends to it.
type hasher interface {
	Mechanism
	// values returns g.
	values() int
	// hash returns H_seed(x) in 0..g−1.
	hash(seed uint32, x int) int
	// low returns e^{−ε}: a report's likelihood at a symbol off its
	// value relative to one on it.
	low() float64
	// logKept returns the log-probability ln(e^ε/(e^ε + g − 1)) of a
	// report at a symbol on its value, given the seed.
	logKept() float64
	// SampleHash draws the report of x.
	SampleHash(rng *rand.Rand, x int) Report
}

// A setReports mechanism's report is a bit vector whose likelihood
// column is 1 on its set bits and low elsewhere, times e^{scale}: OUE,
// RAPPOR and subset selection. The EM model's set terms (gibu_set.go:
// GIBU, IBU, corrected EM's EM) read the set bits alone, without a
// K-entry column a report.
type setReports interface {
	Mechanism
	// setForm returns low and the scale of a report with ones bits set.
	setForm(ones int) (low, scale float64)
}

// A reportChecker refuses bit vectors that are not its reports (subset
// selection's, whose ω bits are set), as ParseReport reads them.
type reportChecker interface {
	checkReport(v Bits) error
}

// A Personalized mechanism lets each user first map her own personal
// sensitive data to semantic tags, then sanitise the result with a
// mechanism common to everyone on the data's symbols plus one symbol a
// tag (PUM, ULDP §5). Its Inputs and Likelihood are the common
// mechanism's, over the extended alphabet.
type Personalized interface {
	Mechanism
	// DataSymbols returns the size K of the alphabet of true data.
	DataSymbols() int
	// TagNames names the tags, whose symbols are K, K+1, ….
	TagNames() []string
	// Premap returns the extended symbol that a user whose personal
	// cells are personal (one per tag, −1 for none) sanitises for x.
	Premap(x int, personal []int) int
	// Common returns the mechanism that draws the reports.
	Common() Mechanism
}

// An operator applies a channel without forming it, as PlanarGeometric's
// FFT convolution: dst = A x, or Aᵀ x when trans.
type operator interface {
	MulVecTo(dst []float64, trans bool, x []float64) []float64
}

// An entrier gives the entries A(x, z) = P(z | x) of an operator, as
// every Channel does.
type entrier interface {
	Prob(x, z int) float64
}

// A squarer is an operator whose entrywise square A∘A is itself an
// operator: the diagonal of a likelihood's Hessian, Σ_z s_z A(x, z)², is
// then one product (diagonal).
type squarer interface {
	squared() operator
}

// A bitFlipper reports a one-hot vector with each bit flipped with the
// same probability: basic one-time RAPPOR (FW eq. 12), the mechanism of
// RAP's estimator.
type bitFlipper interface {
	BitSampler
	// flipProb returns the probability 1/(1+e^{ε/2}) of flipping a bit.
	flipProb() float64
}

// A bitLogProber gives its bits' log-probabilities in closed form.
type bitLogProber interface {
	// bitLogProbs returns ln P(bit j = 1 | x) and ln P(bit j = 0 | x).
	bitLogProbs(x, j int) (l1, l0 float64)
}

// A oneHotBits channel's bit j has one law when j is the input and
// another when it is not, as RAPPOR's and uRAP's one-hot encodings:
// bitLogProbs(x, j) depends on x only through x = j.
type oneHotBits interface {
	BitChannel
	bitLogProber
	oneHot()
}

// A positiveChannel's formula makes every probability of its audited
// outputs positive: every output of k-RR, RAPPOR and the geometric
// mechanisms, the protected outputs of uRR and uRAP. A zero read off it
// is a float64 underflow, not an impossible output.
type positiveChannel interface{ positiveOutputs() }

// A utilityOptimized mechanism protects only its sensitive symbols X_S:
// uRR and uRAP (ULDP Def. 3–4). Its ε-LDP holds over the protected
// outputs, and each other output must reveal a single input.
type utilityOptimized interface {
	// IsSensitive reports whether symbol x is in X_S.
	IsSensitive(x int) bool
}

// An empirical mechanism has an unbiased estimator that is affine in the
// frequencies f of its outputs or bits: p̂ = f·scale − offset (uRR and
// uRAP, ULDP §4.1–§4.2).
type empirical interface {
	// empirical returns f from the reports of g and the estimator's
	// scale and offset.
	empirical(g *Groups) (f, scale, offset []float64)
}

// A worker is an operator that knows the multiply-adds of one
// application, when it is not O(K): a planar geometric channel's two
// FFTs on its torus. Newton's method weighs it against forming the
// Hessian (face.go).
type worker interface {
	work() float64
}

// A rowOperator is a worker whose channel's rows are formed on demand
// rather than held: a planar geometric channel. Corrected EM's bias
// correction applies its users by the operator when their columns
// exceed the budget, reading P(·|x) a row at a time (cem_shares.go);
// batchOps shares the transforms of several of one grid.
type rowOperator interface {
	Mechanism
	operator
	worker
	// probRow sets dst to the row P(·|x).
	probRow(x int, dst []float64)
}

// A localReader is a mechanism whose channel the windowed profile
// likelihood reads in closed form near each cell (profile_local.go):
// k-RR and planar geometric.
type localReader interface {
	// gridShape returns the grid the channel is drawn on, ok false for a
	// channel of any alphabet (k-RR).
	gridShape() (cols, rows int, ok bool)
	// setLocal sets ch's channel: the mechanism, the reach of its rows
	// beyond a window, and its output law at θ.
	setLocal(ch *localChannel, theta []float64)
}

// A blinder is a mechanism that may not have seen the prior it was
// built for: Shokri's optimal mechanism whose quality bound does not
// bind (Shokri.Blind), which the inversion estimators refuse.
type blinder interface {
	// blindObjective returns the mechanism's objective and whether it
	// is blind.
	blindObjective() (float64, bool)
}

// A closedFormer has a maximum-likelihood estimate in closed form when
// every user runs the same channel: k-RR (KRR.MLE). GIBU starts from it,
// and its first step certifies it.
type closedFormer interface {
	Channel
	// MLE returns the MLE from the counts of each output symbol.
	MLE(counts []float64) []float64
	// sameChannel reports whether o draws its reports through the same
	// channel.
	sameChannel(o Channel) bool
}

// A ReportShape says what a report holds when it is not one of the K
// symbols nor K bits of a one-hot encoding: a hash's seed and one of
// Hashes values (local hashing), Subset of the K symbols (subset
// selection), or one of Outputs symbols (the Hadamard response). Zero
// fields do not apply.
type ReportShape struct {
	Hashes, Subset, Outputs int
}

// A shaper tells its ReportShape.
type shaper interface{ shape() ReportShape }

// Shape returns the shape of m's reports: all zero for the mechanisms
// whose reports are symbols or bit vectors of the alphabet.
func Shape(m Mechanism) ReportShape {
	if s, ok := reporter(m).(shaper); ok {
		return s.shape()
	}
	return ReportShape{}
}
