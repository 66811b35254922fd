package guarantee

import (
	"fmt"

	"github.com/privmap/privmap/app/human"
	"github.com/privmap/privmap/core"
)

// MechanismLevel describes a mechanism's kind and level for a figure's
// header: "krr ε 3.05", "shokri Q 0.5", "no noise".
func MechanismLevel(m core.MechanismSpec) string {
	info, ok := m.Kind.Info()
	switch {
	case ok && info.Param == core.ParamQualityLoss:
		return fmt.Sprintf("%s Q %.4g", m.Kind, m.QualityLoss)
	case ok && info.Param == core.ParamNone:
		return "no noise"
	}
	return fmt.Sprintf("%s ε %.4g", m.Kind, m.Epsilon)
}

// ShapeText says what a report of shape s holds when it is not one of
// the k symbols or bits: "reports a hash seed and one of 56 values",
// "reports 2,427 of the 9,024 symbols", "reports one of 16,384
// outputs"; "" otherwise.
func ShapeText(s core.ReportShape, k int) string {
	switch {
	case s.Hashes > 0:
		return fmt.Sprintf("reports a hash seed and one of %s values", human.Thousands(s.Hashes))
	case s.Subset > 0:
		return fmt.Sprintf("reports %s of the %s symbols", human.Thousands(s.Subset), human.Thousands(k))
	case s.Outputs > 0:
		return fmt.Sprintf("reports one of %s outputs", human.Thousands(s.Outputs))
	}
	return ""
}
