package guarantee

import (
	"errors"
	"slices"
	"testing"

	"github.com/privmap/privmap/app/pipeline"
	"github.com/privmap/privmap/core"
)

// TestStudyCounts counts a study's data per person: six records of five
// people in three cells, one person with two records. Δ defaults to the
// largest contribution (2); at Δ = 1 it is refused naming 2, or clipped
// dropping one record; the cells of one or two people are the second and
// third (the first holds three people); without people each record is a
// person.
func TestStudyCounts(t *testing.T) {
	s := &core.Study{Alphabet: core.Alphabet{Kind: core.KindCategorical, Size: 3},
		Data: []int{0, 0, 0, 1, 1, 2}, People: []int{0, 1, 2, 3, 3, 4}}
	counts, c, err := StudyCounts(s, 0, false, nil)
	if err != nil || !slices.Equal(counts, []float64{3, 2, 1}) || c.Sensitivity != 2 || c.Bound || c.Largest != 2 || c.SmallCells != 2 {
		t.Errorf("Δ from the data: %v %+v %v", counts, c, err)
	}
	var ce *ContributionError
	if _, _, err := StudyCounts(s, 1, false, nil); !errors.As(err, &ce) || ce.Largest != 2 || ce.Sensitivity != 1 {
		t.Errorf("Δ = 1 below a person's 2 records: %v", err)
	}
	counts, c, err = StudyCounts(s, 1, true, pipeline.NewRand(1))
	if err != nil || !slices.Equal(counts, []float64{3, 1, 1}) || c.Dropped != 1 || c.Neighbours() != "add or remove one person with her one record" {
		t.Errorf("clipped at Δ = 1: %v %+v %v", counts, c, err)
	}
	s.People = nil
	counts, c, err = StudyCounts(s, 0, false, nil)
	if err != nil || c.Sensitivity != 1 || c.Known || c.SmallCells != 2 || !slices.Equal(counts, []float64{3, 2, 1}) {
		t.Errorf("without people: %v %+v %v", counts, c, err)
	}
	if _, _, err := StudyCounts(&core.Study{}, 0, false, nil); !errors.Is(err, ErrNoData) {
		t.Errorf("no data: %v", err)
	}
}
