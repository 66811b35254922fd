// Package guarantee says what privmap promises each person, in numbers
// and in plain words.
//
// A Contribution says who the unit of privacy is (a person, or a record
// when the data do not say whose it is) and how many records she may
// hold, bounded in advance or read from the data. PlainReading and
// PersonReading turn a mechanism's audit into odds for one report and
// for all the reports of one person (basic sequential composition: the
// ε of her k reports add up to kε). MetricsReading says an estimate's
// errors in the units of the map.
package guarantee
