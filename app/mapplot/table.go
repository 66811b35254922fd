package mapplot

import (
	"fmt"
	"strconv"

	"github.com/privmap/privmap/core"
)

// MaxCategories is the most cells a table of categories (Table) is drawn
// with: as many as a census table may have (geo.MaxCells), so that every
// table the window tabulates can be drawn.
const MaxCategories = 4 << 20

// Table returns the map of values, a probability or count per symbol of
// alphabet a, as a table of categories. With attributes (a census table)
// it is the marginal of attribute row down and col across, or with col <
// 0 a bar chart of row alone; without attributes it is a bar chart over
// the symbols 0..K−1. Title, Label and Scale are the caller's to set.
func Table(a core.Alphabet, values []float64, row, col int) (*Map, error) {
	if len(a.Attributes) == 0 {
		k := len(values)
		if k > MaxCategories {
			return nil, fmt.Errorf("%d symbols are too many to draw as bars (at most %d)", k, MaxCategories)
		}
		labels := make([]string, k)
		for i := range labels {
			labels[i] = strconv.Itoa(i)
		}
		return &Map{Values: values, Bars: true, Cols: k, Rows: 1, ColLabels: labels, ColName: "symbol", RowLabels: []string{""}}, nil
	}
	at := a.Attributes
	if row < 0 || row >= len(at) || col >= len(at) || col == row {
		return nil, fmt.Errorf("attributes %d and %d of %d: want two different attributes, or one", row, col, len(at))
	}
	keep := []int{row}
	if col >= 0 {
		keep = append(keep, col)
	}
	cells := len(at[row].Labels)
	if col >= 0 {
		cells *= len(at[col].Labels)
	}
	if cells > MaxCategories {
		return nil, fmt.Errorf("%d cells are too many to draw (at most %d): choose attributes with fewer categories", cells, MaxCategories)
	}
	m, err := a.Marginal(values, keep...)
	if err != nil {
		return nil, err
	}
	out := &Map{Values: m, Bars: true, Cols: len(at[row].Labels), Rows: 1,
		ColLabels: at[row].Labels, ColName: at[row].Name, RowLabels: []string{""}}
	if col >= 0 {
		out.Cols, out.Rows, out.Bars = len(at[col].Labels), len(at[row].Labels), false
		out.ColLabels, out.ColName = at[col].Labels, at[col].Name
		out.RowLabels, out.RowName = at[row].Labels, at[row].Name
	}
	// Aspect 0: the table fills the room; categories have no shape.
	return out, nil
}
