package guarantee

import (
	"fmt"

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
