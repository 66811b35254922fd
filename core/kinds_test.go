package core

import (
	"context"
	"slices"
	"testing"
)

// exampleSpec returns a valid spec of kind, at level 2, on a 3×2 grid of
// 1 km cells, or on a line of 6 symbols when the kind does not take a
// grid, from what the kind's record says it takes.
func exampleSpec(kind Kind) (MechanismSpec, Alphabet) {
	a := Alphabet{Kind: KindGrid, Cols: 3, Rows: 2, CellKm: 1}
	if kind.Alphabets != nil && !slices.Contains(kind.Alphabets, KindGrid) {
		a = Alphabet{Kind: kind.Alphabets[0], Size: 6}
	}
	spec := MechanismSpec{ID: string(kind.Name), Kind: kind.Name}
	kind.SetLevel(&spec, 2)
	if kind.Sensitive {
		spec.Sensitive = []int{0, 1}
	}
	if kind.Personal {
		spec.Sensitive, spec.Tags = []int{0}, []string{"home"}
	}
	if kind.Hashes {
		spec.G = 3
	}
	return spec, a
}

// TestKindCaps checks every registered kind's record against the
// mechanism it builds: the capabilities it declares are those the
// estimators find on the mechanism (a BitSampler for CapBits, RAP's
// flipProb for CapRAPPOR, the empirical estimator for CapUtility, a
// Personalized mechanism for CapPersonal, a hasher for CapHashed), its parameter is the one
// validation asks for, and a kind built by a linear program is Solved.
func TestKindCaps(t *testing.T) {
	if len(Kinds()) != len(kindRegistry) {
		t.Fatal("Kinds does not list the registry")
	}
	for _, kind := range Kinds() {
		spec, a := exampleSpec(kind)
		m, err := NewMechanismWith(context.Background(), spec, a, nil)
		if err != nil {
			t.Fatalf("%s: %v", kind.Name, err)
		}
		r := reporter(m)
		_, bits := r.(BitSampler)
		_, flips := r.(bitFlipper)
		_, emp := m.(empirical)
		_, personal := m.(Personalized)
		_, hashed := r.(hasher)
		_, oracle := m.(supporter)
		for _, c := range []struct {
			name      string
			cap       Caps
			has, want bool
		}{{"CapBits", CapBits, kind.Caps&CapBits != 0, bits},
			{"CapRAPPOR", CapRAPPOR, kind.Caps&CapRAPPOR != 0, flips},
			{"CapUtility", CapUtility, kind.Caps&CapUtility != 0, emp || personal},
			{"CapPersonal", CapPersonal, kind.Caps&CapPersonal != 0, personal},
			{"CapHashed", CapHashed, kind.Caps&CapHashed != 0, hashed},
			{"CapOracle", CapOracle, kind.Caps&CapOracle != 0, oracle}} {
			if kind.Name == KindPUM && c.cap == CapBits {
				continue // its base decides; PUM's reports go to uldp alone
			}
			if c.has != c.want {
				t.Errorf("%s: record says %s %v, the mechanism %v", kind.Name, c.name, c.has, c.want)
			}
		}
		if _, two := m.(twoValuedChannel); two != kind.TwoValued {
			t.Errorf("%s: record says TwoValued %v, the mechanism %v", kind.Name, kind.TwoValued, two)
		}
		if got, ok := spec.Kind.Info(); !ok || got.Name != kind.Name {
			t.Errorf("%s: Info does not find it", kind.Name)
		}
		if kind.Param != ParamNone && kind.Level(spec) != 2 {
			t.Errorf("%s: Level %v after SetLevel 2", kind.Name, kind.Level(spec))
		}
	}
	if _, ok := MechanismKind("nope").Info(); ok {
		t.Error("an unknown kind has a record")
	}
}
