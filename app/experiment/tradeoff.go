package experiment

import (
	"fmt"
	"io"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/privmap/privmap/app/attack"
	"github.com/privmap/privmap/app/mapplot"
	"github.com/privmap/privmap/app/output"
)

// TradeOffCurve returns the figure of a sweep (privmap attack -sweep,
// the Population screen's trade-off): the attacker's success from one
// report against the estimate's median error, one point an ε.
func TradeOffCurve(sw *attack.Sweep) mapplot.TradeOff {
	c := mapplot.TradeOff{XLabel: "an attacker's success from one report", Current: -1,
		Series: fmt.Sprintf("%s alone, median of %d deployments", sw.Kind, sw.Runs)}
	c.YLabel = metricLabel(sw.Metric, sw.Unit)
	for i, p := range sw.Points {
		c.Eps, c.X, c.Y = append(c.Eps, p.Eps), append(c.X, p.Success), append(c.Y, p.Error)
		c.Prior = p.Prior
		if p.Eps == sw.Current {
			c.Current = i
		}
	}
	return c
}

// The trade-off figure is 1400 × 900 pixels, two a point, as the plan's.
const tradeW, tradeH, tradePxPerPt = 1400, 900, 2

// WriteTradeOff draws the sweep black on white (mapplot.Print), headed
// by title unless it is "", as PNG or SVG (format "png" or "svg").
func WriteTradeOff(w io.Writer, sw *attack.Sweep, title, format string) error {
	pl, err := mapplot.TradeOffPlot(mapplot.Print, TradeOffCurve(sw))
	if err != nil {
		return err
	}
	pl.Title.Text = title
	sp := mapplot.StyledPlot{Plot: pl, Style: mapplot.Print}
	switch format {
	case "png":
		return output.WritePNG(w, sp.Image(tradeW, tradeH, tradePxPerPt))
	case "svg":
		c := vgsvg.New(vg.Length(tradeW/tradePxPerPt), vg.Length(tradeH/tradePxPerPt))
		pl.Draw(draw.Crop(draw.New(c), 4, -8, 4, -4))
		return output.WriteStamped(w, output.StampSVG, func(w io.Writer) error { _, err := c.WriteTo(w); return err })
	}
	return fmt.Errorf("figure format %q: want png or svg", format)
}
