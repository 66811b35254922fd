package gui

import (
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"github.com/stretchr/testify/assert"
)

// nativeTestWindow is a window with a platform context, "ctx".
type nativeTestWindow struct{ fyne.Window }

func (nativeTestWindow) RunNative(f func(any)) { f("ctx") }

// TestWindowPlace checks the position kept in the preferences with a
// platform's calls stood in for: written as it changes (negative on a
// screen left of the main one), put back on the next start, a stored
// value that does not parse or a place the platform refuses left alone,
// and nothing done for a window without a platform context.
func TestWindowPlace(t *testing.T) {
	oldPos, oldMove := nativePosition, nativeMove
	t.Cleanup(func() { nativePosition, nativeMove = oldPos, oldMove })
	x, y := 100, 200
	var moves [][2]int
	nativePosition = func(ctx any) (int, int, bool) { return x, y, ctx == "ctx" }
	nativeMove = func(ctx any, nx, ny int) bool {
		moves = append(moves, [2]int{nx, ny})
		return ctx == "ctx" && nx > -10000
	}
	a := test.NewTempApp(t)
	p := a.Preferences()
	k := &placeKeeper{prefs: p, win: nativeTestWindow{a.NewWindow("privmap")}}
	k.restore()
	assert.Empty(t, moves, "moved with nothing stored")
	k.check()
	assert.Equal(t, "100,200", p.String(prefPlace))
	x = -50
	k.check()
	assert.Equal(t, "-50,200", p.String(prefPlace))

	again := &placeKeeper{prefs: p, win: nativeTestWindow{a.NewWindow("privmap")}}
	again.restore()
	assert.Equal(t, [][2]int{{-50, 200}}, moves)
	assert.Equal(t, "-50,200", again.last)

	for _, stored := range []string{"garbage", "-20000,5"} {
		p.SetString(prefPlace, stored)
		k := &placeKeeper{prefs: p, win: nativeTestWindow{a.NewWindow("privmap")}}
		k.restore()
		assert.Empty(t, k.last, "%q taken as the place", stored)
	}
	assert.Len(t, moves, 2, "a stored value that does not parse was tried")

	plain := &placeKeeper{prefs: p, win: a.NewWindow("privmap")}
	p.SetString(prefPlace, "1,2")
	plain.restore()
	plain.check()
	assert.Len(t, moves, 2)
	assert.Equal(t, "1,2", p.String(prefPlace))
}
