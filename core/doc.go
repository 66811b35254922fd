// Package core holds the mathematics of privmap: alphabets, local privacy
// mechanisms, estimators and metrics. It works on integer symbols 0..K−1
// and knows nothing of geography or of the user interface; package geo
// maps places to symbols and package app draws the results.
//
// Simulation randomness is seeded math/rand/v2, which makes experiments
// repeatable and is not fit for collecting real data: a collection client
// would need crypto/rand and floating-point-safe noise samplers (see
// Mironov, "On significance of the least significant bits for differential
// privacy", CCS 2012). Nothing in this package is such a client.
package core
