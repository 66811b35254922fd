// Package census reads census microdata — UCI Adult and UCI US Census 1990 —
// and turns the attributes a user picks into the symbols of a categorical
// alphabet (the cross product of the attributes' categories) or, for one
// ordered attribute, a linear one, so that package core can estimate their
// joint distribution as it does for map cells.
//
// Two files are understood:
//
//   - Adult (Becker and Kohavi 1996): adult.data and adult.test, lines of 15
//     comma-and-space separated fields without a header, age first and the
//     income class last. adult.test opens with a "|1x3 Cross validator" line
//     and ends its class labels with a full stop (">50K."); both quirks are
//     absorbed. A missing value is "?".
//   - US Census 1990 (Meek, Thiesson and Heckerman): the recoded
//     USCensus1990.data.txt, a header line "caseid,dAge,…" and 68 coded
//     integer attributes per person.
//
// A Reader streams either file record by record with line-numbered
// *geo.ParseError values. Tabulate bins the chosen attributes (Attr),
// applying a missing-value policy, and returns every person's symbol. The
// presets of CEM Table 2 (age 8 × sex 2 × income 5 × marital status 5 = 400
// categories, Murakami, Hino and Sakuma, "Toward distribution estimation
// under local differential privacy with small samples", PoPETs 2018) and
// an analogous mapping for Adult are in Presets.
package census
