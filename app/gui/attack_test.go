package gui

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPopulationAttack checks what the Population screen says of an
// attacker on the embedded data: each row's audit ends with what one
// report tells her, the panel attacks each person, and a trade-off is
// drawn with the population's ε marked and its exports enabled.
func TestPopulationAttack(t *testing.T) {
	_, p := newPopulationUI(t)
	require.NotEmpty(t, p.rows)
	for _, r := range p.rows {
		assert.Contains(t, r.audit.Text, "Seeing one report, an attacker who knows the data's map names the right 0.5 km cell for ")
	}
	a := p.attack
	test.Tap(a.job.runBtn)
	settleUntil(t, "the home attack", func() bool { return !a.job.running })
	assert.Contains(t, a.status.Text, "an attacker finds the home cell of ")
	assert.Contains(t, a.status.Text, "reports drawn with seed 1")

	a.kind.SetSelected("planar-geometric")
	assert.Equal(t, "0.2", a.from.Text, "the kind's range")
	a.to.SetText("3")
	a.points.SetText("3")
	test.Tap(a.sweepBtn)
	settleUntil(t, "the trade-off", func() bool { return !a.job.running })
	require.NotNil(t, a.last, a.sweepStatus.Text)
	assert.True(t, strings.HasPrefix(a.sweepStatus.Text, "For planar-geometric alone from ε 0.19 to 3"), a.sweepStatus.Text)
	assert.Contains(t, a.status.Text, "an attacker finds the home cell of ", "the home attack's words kept")
	assert.Equal(t, 0.19, a.last.Current, "FW Table 6's first planar level, in place of 0.2")
	assert.Len(t, a.last.Points, 3)
	for _, b := range a.exports {
		assert.False(t, b.Disabled(), b.Text)
	}

	a.points.SetText("1")
	_, err := a.request()
	assert.ErrorContains(t, err, "points \"1\": want a whole number from 2")
}
