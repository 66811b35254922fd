package gui

import (
	"os"
	"testing"

	"fyne.io/fyne/v2/test"
	"github.com/privmap/privmap/app/mapplot"
	"github.com/privmap/privmap/geo"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCensusFile loads real Adult lines: the data tab tabulates them over
// CEM Table 2's attributes, shows an attribute-pair heat map with
// labelled axes and hover, and tabulates again on other attributes.
func TestCensusFile(t *testing.T) {
	_, d := newTestUI(t)
	b, err := os.ReadFile("../../geo/census/testdata/adult_sample.data")
	require.NoError(t, err)
	d.load(bytesSource("adult.data", b), false)
	settle(t)
	require.True(t, d.ws.data.isCensus())
	assert.Equal(t, "adult format · 14 lines · 0 skipped", d.fields["Read"].Text)
	assert.Equal(t, "13 people (a record each)", d.fields["Data"].Text)
	assert.Equal(t, "120 categories · 12 non-empty", d.fields["Cells"].Text)
	assert.Equal(t, "age 6 × sex 2 × income 2 × marital 5", d.fields["Cell size"].Text)
	assert.Equal(t, "Categories", d.summary.Items[4].Text)
	assert.False(t, d.gridCard.Visible())
	assert.True(t, d.census.card.Visible())

	m := d.heat.Map
	require.NotNil(t, m)
	assert.Equal(t, []string{"17–19", "20–29", "30–39", "40–49", "50–64", "65+"}, m.RowLabels)
	assert.Equal(t, []string{"male", "female"}, m.ColLabels)
	// Age 50–64 (row 4): three men (50, 53, 54) and one woman (54).
	assert.Equal(t, 3.0, m.Values[4*2+0])
	assert.Equal(t, 1.0, m.Values[4*2+1])
	d.onHover(4*2 + 0)
	assert.Equal(t, "age 50–64 · sex male · 3 people (23.08%)", d.hover.Text)

	d.census.col.SetSelected("marital")
	m = d.heat.Map
	assert.Equal(t, 5, m.Cols)
	assert.Equal(t, "marital", m.ColName)
	// One attribute alone: a single row of its categories.
	d.census.col.SetSelected(noAttribute)
	assert.Equal(t, 1, d.heat.Map.Rows)
	assert.Equal(t, 6, d.heat.Map.Cols)

	test.Type(d.census.attrs, "")
	d.census.attrs.SetText("age, workclass")
	d.census.missing.SetSelected(missingCategory)
	test.Tap(d.census.tabulate)
	settle(t)
	assert.Equal(t, "age 6 × workclass 4", d.fields["Cell size"].Text)
	assert.Equal(t, "workclass", d.heat.Map.ColName)
	assert.Contains(t, d.heat.Map.ColLabels, "missing")
	assert.Equal(t, "age, workclass", d.app.Preferences().String(prefCensusAttrs))

	// An unknown attribute keeps the table and says why.
	d.census.attrs.SetText("height")
	test.Tap(d.census.tabulate)
	settle(t)
	assert.Equal(t, "age 6 × workclass 4", d.fields["Cell size"].Text)
	assert.Contains(t, d.status.Text, "previous table stays")

	// A malformed census line, skipped on request, is counted and listed.
	bad := string(b) + "40, Private\n"
	d.census.attrs.SetText(defaultAttrs)
	d.load(bytesSource("bad.data", []byte(bad)), true)
	settle(t)
	assert.Equal(t, "adult format · 15 lines · 1 skipped", d.fields["Read"].Text)
	assert.True(t, d.skipped.Visible())
	d.onShowSkipped()

	// Check-ins again: the grid card and its labels come back.
	d.load(bytesSource("nyc.txt", []byte("40.7,-74.0\n40.71,-74.01\n40.72,-74.02\n")), false)
	settle(t)
	assert.True(t, d.gridCard.Visible())
	assert.False(t, d.census.card.Visible())
	assert.Equal(t, "Cells", d.summary.Items[4].Text)
}

// TestCensusMapLimit checks the window can draw the largest table a census
// file may tabulate (geo.MaxCells).
func TestCensusMapLimit(t *testing.T) {
	assert.GreaterOrEqual(t, mapplot.MaxCategories, geo.MaxCells)
}
