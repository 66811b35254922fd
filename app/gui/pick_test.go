package gui

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/privmap/privmap/core"
)

// TestPickSensitiveCells picks a uRR's sensitive cells on the map:
// clicking adds or removes a cell, the row's entry and the outlines
// follow, Clear empties, Done ends.
func TestPickSensitiveCells(t *testing.T) {
	w, u := newTestWindow(t)
	u.pop.addRow(core.MechanismSpec{ID: "u", Kind: core.KindURR, Epsilon: 1, Sensitive: []int{5}})
	r := u.pop.rows[len(u.pop.rows)-1]
	require.False(t, r.pick.Disabled())
	assert.True(t, u.pop.rows[0].pick.Disabled(), "a planar geometric row has no sensitive cells")
	r.pick.OnTapped()
	assert.Equal(t, screen(u.data), u.ws.current())
	assert.True(t, u.data.picker.banner.Visible())
	w.Canvas().Capture() // draws the map, placing its cells
	assert.Equal(t, []int{5}, u.data.heat.Selected)

	for _, c := range []int{8, 5, 7, 100} {
		assert.True(t, u.data.picker.tapped(c))
	}
	assert.Equal(t, "7, 8, 100", r.sensitive.Text)
	assert.Equal(t, []int{7, 8, 100}, u.data.heat.Selected)
	assert.Contains(t, u.data.picker.label.Text, "3 cells")
	spec, err := r.spec()
	require.NoError(t, err)
	assert.Equal(t, []int{7, 8, 100}, spec.Sensitive)

	u.data.picker.set(nil)
	assert.Equal(t, "", r.sensitive.Text)
	u.data.picker.set([]int{9, 3, 3})
	assert.Equal(t, "3, 9", r.sensitive.Text)
	u.data.picker.done()
	assert.Equal(t, screen(u.pop), u.ws.current(), "Done returns to the Population screen")
	assert.False(t, u.data.picker.banner.Visible())
	assert.Nil(t, u.data.heat.Selected)
	assert.False(t, u.data.picker.tapped(4), "taps do nothing once done")
	assert.Equal(t, "3, 9", r.sensitive.Text)
}
