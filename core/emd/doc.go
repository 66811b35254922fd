// Package emd measures an estimate against the truth (docs/ARCHITECTURE.md
// §5): the squared error (CEM eq. 2), the Jensen–Shannon divergence (CEM
// eq. 8), the total variation, and the earth mover's distance in the
// alphabet's ground distance — in closed form on a line, and on a grid
// exactly, by the transportation simplex (Transport), refused with a
// *core.TooLargeError before its table would pass 1 GB or the memory
// the process can still obtain.
package emd
