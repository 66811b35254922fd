// Package emd measures an estimate against the truth (docs/ARCHITECTURE.md
// §5): the squared error (CEM eq. 2), the Jensen–Shannon divergence (CEM
// eq. 8), the total variation, and the earth mover's distance in the
// alphabet's ground distance — in closed form on a line, and on a grid
// exactly, by the transportation simplex (Transport), refused with a
// *core.TooLargeError before its table would pass 1 GB or the memory
// the process can still obtain.
//
// # Metrics
//
// EMD in the alphabet's ground distance (linear: Σ|difference of the
// CDFs|; grid: exact optimal transport with Euclidean km between cell
// centres, from the cells' true width and height — `Alphabet.CellSides`,
// 0.5002 × 0.4995 km for a nominal 0.5 km in New York — as the audits'
// distances per km are too), squared error Σ(p−p̂)² (CEM eq. 2), Jensen–Shannon divergence
// (CEM eq. 8, natural log), total variation (½ L1), and the estimate's
// log-likelihood. `emd.Compare`. Their reading (`guarantee.MetricsReadingOf`)
// speaks of the map's unit (`guarantee.MapUnit`): people when each holds one
// datum, check-ins on a grid of several a person, records when the data
// do not say whose — "12% of the check-ins would have to move".
//
// The exact transport (`core/emd/transport.go`, `simplex.go`) is the
// network simplex on the supports' m×n cells: the basis a spanning tree
// rooted at a row, kept as parents, depths and children in flat arrays (a
// pivot costs its cycle and the subtree it moves); pricing by each row's
// shortlist of its cheapest columns (a dozen, plus the columns its mass
// would fill), in blocks, and a scan of all m·n cells only when the
// shortlists hold no negative reduced cost, its negative cells joining the
// shortlists; optimality only after a full scan on potentials solved
// afresh finds none. The start is the least-cost rule over the shortlists
// (the rows left with supply then by heaps over their rows). On grids the
// costs are computed when needed from the cells' rows and columns and a
// table of the grid's offsets (bit-equal to `Alphabet.Distance`), and a
// row's shortlist searches the nearby rows only: no m×n table is stored.
// `emd.Transport` with an arbitrary cost keeps the m×n table, checked
// against the memory first. Beyond 1.25·10⁸ cells the EMD is left out
// with a note saying so (`Metrics.EMDNote`, the CLI's `emd_note`), never
// approximated silently.
package emd
