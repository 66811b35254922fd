// Package ledger keeps an organisation's privacy budget in an SQLite
// database (modernc.org/sqlite, pure Go): every publication of a data
// set's counts is an entry, and under basic composition the ε of the
// publications of the same people add up, whatever study, grid or
// machine they came from (the package doc).
//
// What it protects against:
//   - races: a publication reads the total spent, checks the budget and
//     appends its entry in one immediate transaction, so two started
//     together cannot both spend past the budget;
//   - edits, deletions and reorderings: entries are hash-chained (each
//     holds the SHA-256 of the previous entry and of its own facts), and
//     a broken chain is found on opening, naming the entry, after which
//     nothing may spend;
//   - a budget raised silently: the budget is set once, and raising it is
//     an entry of its own, made only when asked (-raise-budget).
//
// What it does not protect against: replacing the whole file with an
// older copy, whose chain is whole. A filed report prints the chain's
// head, which shows it: the older file's head is not the report's.
//
// # The ledger
//
// The privacy budget belongs to the people in the data, whatever study,
// grid or machine a release comes from, so it is kept in one SQLite
// database per organisation (`app/ledger`, through modernc.org/sqlite,
// which privmap already uses for GeoPackage and MBTiles): `-ledger PATH`
// on the command line, the Release screen's Ledger entry in the window
// (preference `release.ledger`), by default `privmap/ledger.sqlite` in the
// user's data folder (`$XDG_DATA_HOME`, `~/.local/share`, `%AppData%`,
// `~/Library/Application Support`). Each data set is keyed by a name the
// officer gives (`-dataset`, default the data file's name). Every entry —
// a budget set, raised or lowered, a publication — records the data set,
// the kind, the date, who ran it (`$USER`), the data file's SHA-256, the
// study, the mechanism, Δ, ε (its shortest decimal, summed exactly in
// `big.Rat`, so 0.1 + 0.2 spent is 0.3), the budget, the output and its
// SHA-256, a note, the previous entry's hash and its own: SHA-256 of the
// previous hash and the entry's facts in a fixed order, so that the
// entries form one chain numbered 1, 2, ….
//
//   - A publication reads the spent total, checks the budget and appends
//     its entry in one `BEGIN IMMEDIATE` transaction (`_txlock=immediate`,
//     a 30 s busy timeout): two releases started together, in two processes
//     or on a path two processes share, cannot both spend
//     (`TestRaceProcesses`, `TestReleaseLedgerRace`). It happens before the
//     release's files are written; if writing them then fails, the error
//     says the draw is recorded and spent.
//   - The chain is checked on every opening and in every transaction: an
//     edited, deleted or reordered entry is a `*ledger.TamperError` naming
//     it, and nothing may spend until the file is restored (`TestTamper`).
//   - The budget is set once; a higher one needs `-raise-budget` (in the
//     window, a confirmation) and is an entry of its own; a lower one is
//     always allowed.
//   - What it does not protect against: the whole file replaced by an older
//     copy, whose chain is whole. The release's JSON line, the report's
//     release section and the window print the chain's head, so a filed
//     report pins the ledger: a later head that does not extend it shows
//     the replacement.
//   - `grid` never touches the ledger, so re-gridding loses nothing. A
//     study written before has its `ledger` member imported once (by the
//     member's SHA-256, said on stderr, into the data set named after the
//     study's data file) and is then only read.
//   - The report's manifest lists a publication as its recorded draw (the
//     output's SHA-256 and its ledger entry), never as a command to run
//     again: another draw would be another publication
//     (`TestReportPublication` runs every command the manifest offers and
//     finds no entry added).
//
// A release takes ε/Δ ≥ 10⁻⁹ (`core.MinReleaseEpsilon`): below it the
// noise's scale exceeds 10⁹ counts and α = e^{−ε/Δ} heads for 1, which it
// reaches in floating point near 10⁻¹⁶.
//
// Seeded `math/rand/v2` noise is for previews. A release for publication
// (`-secure`) draws integer noise from `crypto/rand` with exact integer
// arithmetic on the ε given as decimals (`core.SecureGeometricMixture`):
// Canonne, Kamath and Steinke's Bernoulli(e^{−γ}) and discrete Laplace
// samplers (NeurIPS 2020), and the mixture by rejection from the discrete
// Laplace of the smaller rate. Floating-point Laplace noise is never
// released for publication: its low bits leak the count it was added to
// (Mironov, CCS 2012).
//
// The window's Release screen (`app/gui/release.go`) releases the Data
// screen's counts (a grid's cells or a census table's categories) with the
// mechanism and parameters chosen, shows as they are typed the noise's
// worst-case ε, budget (both readings), E|noise|, variance and entropy and
// the standard mechanism of the same budget (`release.Spec.Matching`:
// a geometric mechanism's budget is its ε; a rounded Laplace mechanism's
// ε is found by bisection) and, on a logarithmic axis, the PMF of the
// integer noise added to a count beside that mechanism's over the span
// holding 99.9% of either (`release.Noise`, `release.Span`, `mapplot.NoisePlot`: a
// tent for a standard mechanism, bent at ±c for a mixture), draws the true and released counts and their
// difference on the Compare screen's maps, with the release's errors, and
// exports the figure and the CSV `privmap release` writes. A draw for
// publication (exact geometric noise from crypto/rand) is offered for the
// geometric mechanisms only. With "Uncertainty
// map" ticked (remembered; off by default, as four maps a row are small
// beside the noise's form) it draws a fourth map beside the three, the
// true counts' 95% interval
// half-widths (`release.Interval.Bounds`: ±Each, less where the
// interval meets 0, T more where a count was suppressed; `release -ci`
// writes the same bounds), or, with "Only cells surely not empty", the
// released counts of the cells whose band lies above 0; the hover reads
// the true count's interval, and the exported CSV carries
// `lo,hi,band_lo,band_hi`.
package ledger
