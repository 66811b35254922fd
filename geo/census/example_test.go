package census_test

import (
	"fmt"
	"strings"

	"github.com/privmap/privmap/geo/census"
)

func ExampleTabulate() {
	adult := `|1x3 Cross validator
25, Private, 226802, 11th, 7, Never-married, Machine-op-inspct, Own-child, Black, Male, 0, 0, 40, United-States, <=50K.
38, Private, 89814, HS-grad, 9, Married-civ-spouse, Farming-fishing, Husband, White, Male, 0, 0, 50, United-States, <=50K.
44, Private, 160323, Some-college, 10, Married-civ-spouse, Machine-op-inspct, Husband, Black, Male, 7688, 0, 40, United-States, >50K.
`
	r, err := census.NewReader(strings.NewReader(adult), census.Adult)
	if err != nil {
		fmt.Println(err)
		return
	}
	tab, err := census.Tabulate(r, census.CEMTable2(census.Adult), census.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(tab.Len(), "categories")
	labels := tab.Labels()
	for _, x := range tab.Data {
		fmt.Println(x, labels[x])
	}
	// Output:
	// 120 categories
	// 24 20–29, male, ≤$50K, never married
	// 40 30–39, male, ≤$50K, married
	// 65 40–49, male, >$50K, married
}
