package app

import (
	"fmt"

	"github.com/privmap/privmap/core"
)

// MechanismLevel describes a mechanism's kind and level for a figure's
// header: "krr ε 3.05", "shokri Q 0.5", "no noise".
func MechanismLevel(m core.MechanismSpec) string {
	switch m.Kind {
	case core.KindShokri:
		return fmt.Sprintf("shokri Q %.4g", m.QualityLoss)
	case core.KindIdentity:
		return "no noise"
	}
	return fmt.Sprintf("%s ε %.4g", m.Kind, m.Epsilon)
}
