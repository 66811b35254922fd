package census

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/privmap/privmap/core"
	"github.com/privmap/privmap/geo"
)

// A Missing policy says what Tabulate does with a missing value ("?" or an
// empty field).
type Missing int

const (
	// Drop leaves out a record with a missing value in a chosen attribute.
	Drop Missing = iota
	// Category counts a missing value as a category of its own, "missing",
	// placed last among the attribute's categories.
	Category
)

// ParseMissing maps drop or category to a Missing policy.
func ParseMissing(s string) (Missing, error) {
	switch strings.ToLower(s) {
	case "drop", "":
		return Drop, nil
	case "category":
		return Category, nil
	}
	return 0, fmt.Errorf("census: missing-value policy %q (want drop or category)", s)
}

func (m Missing) String() string {
	if m == Category {
		return "category"
	}
	return "drop"
}

// MissingLabel names the category of missing values under Category.
const MissingLabel = "missing"

// Options control Tabulate.
type Options struct {
	Missing Missing
	// SkipBad skips malformed records instead of failing; they are counted
	// in Table.Skipped and the first geo.MaxKeptErrors reasons kept.
	SkipBad bool
}

// An Axis is one attribute of a Table's alphabet and its categories.
type Axis struct {
	Name    string
	Column  string
	Labels  []string
	Ordered bool
	// Missing counts the records whose value was missing.
	Missing int
}

// A Table is the chosen attributes of a census file: every kept record's
// symbol in the cross product of the axes' categories, the first axis most
// significant (core.Alphabet.Digits).
type Table struct {
	Format Format
	Axes   []Axis
	// Data is the symbol of every kept record, in file order.
	Data []int
	// Lines counts the lines read; Records the data records; Dropped the
	// records left out for a missing value under Drop.
	Lines, Records, Dropped int
	Skipped                 int
	Errors                  []*geo.ParseError
}

// Len returns the number of symbols K, the product of the axes' sizes.
func (t *Table) Len() int {
	k := 1
	for _, a := range t.Axes {
		k *= len(a.Labels)
	}
	return k
}

// Counts returns the number of kept records of every symbol.
func (t *Table) Counts() []int {
	c := make([]int, t.Len())
	for _, x := range t.Data {
		c[x]++
	}
	return c
}

// Distribution returns the empirical distribution of the kept records.
func (t *Table) Distribution() []float64 {
	p := make([]float64, t.Len())
	if len(t.Data) == 0 {
		return p
	}
	for i, c := range t.Counts() {
		p[i] = float64(c) / float64(len(t.Data))
	}
	return p
}

// Labels returns the name of every symbol: its axes' labels joined by
// ", ".
func (t *Table) Labels() []string {
	a := core.Alphabet{Kind: core.KindCategorical, Size: t.Len(), Attributes: t.attributes()}
	out := make([]string, t.Len())
	var d []int
	parts := make([]string, len(t.Axes))
	for x := range out {
		d = a.Digits(d, x)
		for j, ax := range t.Axes {
			parts[j] = ax.Labels[d[j]]
		}
		out[x] = strings.Join(parts, ", ")
	}
	return out
}

func (t *Table) attributes() []core.Attribute {
	out := make([]core.Attribute, len(t.Axes))
	for i, a := range t.Axes {
		out[i] = core.Attribute{Name: a.Name, Labels: a.Labels}
	}
	return out
}

// ErrNotOrdinal is returned by Alphabet for an ordinal alphabet of
// attributes without an order.
var ErrNotOrdinal = errors.New("census: an ordinal alphabet needs one ordered attribute without a missing category")

// Alphabet returns the study alphabet of t: categorical with every
// symbol's label and the attributes' structure or, with ordinal, linear
// (distance 1 between successive categories, so that geometric mechanisms
// and the earth mover's distance apply), which needs a single ordered
// attribute.
func (t *Table) Alphabet(ordinal bool) (core.Alphabet, error) {
	a := core.Alphabet{Kind: core.KindCategorical, Size: t.Len(), Labels: t.Labels(), Attributes: t.attributes()}
	if ordinal {
		if len(t.Axes) != 1 || !t.Axes[0].Ordered {
			return core.Alphabet{}, ErrNotOrdinal
		}
		a.Kind = core.KindLinear
	}
	return a, a.Validate()
}

// binner turns one attribute's raw values into category indices; open
// attributes number their categories as met and sort them at the end.
type binner struct {
	attr   Attr
	col    int
	policy Missing
	// open attributes: category index of every value met, and the values.
	index  map[string]int
	values []string
	miss   int
}

// missIndex marks a missing value among the indices until finish.
const missIndex = -1

func (b *binner) category(raw string) (int, error) {
	if raw == "?" || raw == "" {
		return missIndex, nil
	}
	switch {
	case b.attr.Edges != nil:
		return b.attr.bin(raw)
	case b.attr.Values != nil:
		for i, vs := range b.attr.Values {
			if slices.Contains(vs, raw) {
				return i, nil
			}
		}
		return 0, fmt.Errorf("%s %q: %w", b.attr.Name, clip(raw), ErrUnknownVal)
	}
	if m, ok := b.attr.Merge[raw]; ok {
		raw = m
	}
	i, ok := b.index[raw]
	if !ok {
		i = len(b.values)
		b.index[raw] = i
		b.values = append(b.values, strings.Clone(raw))
	}
	return i, nil
}

// finish returns the axis and the final index of every provisional index
// (open attributes sorted; missing last).
func (b *binner) finish() (Axis, []int) {
	ax := Axis{Name: b.attr.Name, Column: b.attr.Column, Missing: b.miss}
	var perm []int
	if b.attr.Edges != nil || b.attr.Values != nil {
		ax.Labels = slices.Clone(b.attr.labels())
		ax.Ordered = b.attr.Edges != nil || b.attr.Ordered
	} else {
		ax.Labels, perm, ax.Ordered = sortValues(b.values)
	}
	if b.miss > 0 && b.policy == Category {
		ax.Labels = append(ax.Labels, MissingLabel)
		ax.Ordered = false
	}
	return ax, perm
}

// sortValues sorts category values as numbers when all are numbers, else
// as text, and returns the new index of every old one.
func sortValues(vals []string) (sorted []string, perm []int, numeric bool) {
	nums := make([]float64, len(vals))
	numeric = true
	for i, v := range vals {
		f, err := core.ParseDecimal(v)
		if err != nil || f != f {
			numeric = false
			break
		}
		nums[i] = f
	}
	order := make([]int, len(vals))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		if numeric {
			return cmp.Compare(nums[a], nums[b])
		}
		return strings.Compare(vals[a], vals[b])
	})
	sorted = make([]string, len(vals))
	perm = make([]int, len(vals))
	for to, from := range order {
		sorted[to] = vals[from]
		perm[from] = to
	}
	return sorted, perm, numeric
}

// Tabulate reads every record of r and returns the categories of attrs.
// A malformed record stops it with a *geo.ParseError naming the line and
// field, unless opt.SkipBad is set.
func Tabulate(r *Reader, attrs []Attr, opt Options) (*Table, error) {
	if len(attrs) == 0 {
		return nil, errors.New("census: no attributes chosen")
	}
	bs, err := binners(r, attrs, opt.Missing)
	if err != nil {
		return nil, err
	}
	t := &Table{Format: r.Format()}
	// Provisional indices, len(attrs) per kept record.
	var idx []int32
	row := make([]int32, len(bs))
	for {
		fields, err := r.Next()
		if err == io.EOF {
			break
		}
		if err == nil {
			err = readRow(bs, fields, row, r.Line())
		}
		var pe *geo.ParseError
		if err != nil && opt.SkipBad && errors.As(err, &pe) {
			t.skip(pe)
			continue
		}
		if err != nil {
			return nil, err
		}
		t.Records++
		if countMissing(bs, row) && opt.Missing == Drop {
			t.Dropped++
			continue
		}
		idx = append(idx, row...)
	}
	t.Lines = r.Line()
	if t.Records == 0 && t.Skipped == 0 {
		return nil, fmt.Errorf("census: %w", geo.ErrEmpty)
	}
	t.finish(bs, idx)
	if err := t.checkSize(); err != nil {
		return nil, err
	}
	return t, nil
}

// checkSize refuses a table whose cross product of categories passes
// geo.MaxCells, the bound on a check-in grid, before anything of that
// size is allocated: numeric attributes left unbinned (fnlwgt,
// capital-gain and capital-loss of UCI Adult make 237 million
// categories) would otherwise exhaust memory. The product is checked
// factor by factor, so it cannot wrap.
func (t *Table) checkSize() error {
	k := 1
	for _, a := range t.Axes {
		n := len(a.Labels)
		if n > 0 && k > geo.MaxCells/n {
			return t.tooLarge()
		}
		k *= n
	}
	return nil
}

// tooLarge is checkSize's error, naming each axis and its count.
func (t *Table) tooLarge() error {
	names := make([]string, len(t.Axes))
	prod := 1.0
	for i, a := range t.Axes {
		names[i] = fmt.Sprintf("%s (%d)", a.Name, len(a.Labels))
		prod *= float64(len(a.Labels))
	}
	return fmt.Errorf("census: the attributes %s make %.3g categories, more than the %d privmap handles; bin the numeric ones (-bins) or merge categories (-merge), or choose fewer", strings.Join(names, " × "), prod, geo.MaxCells)
}

func (t *Table) skip(pe *geo.ParseError) {
	t.Skipped++
	if len(t.Errors) < geo.MaxKeptErrors {
		t.Errors = append(t.Errors, pe)
	}
}

// binners checks attrs and finds their columns.
func binners(r *Reader, attrs []Attr, policy Missing) ([]*binner, error) {
	bs := make([]*binner, len(attrs))
	for i, a := range attrs {
		if err := a.Validate(); err != nil {
			return nil, err
		}
		col := slices.IndexFunc(r.Columns(), func(c string) bool { return strings.EqualFold(c, a.Column) })
		if col < 0 {
			return nil, fmt.Errorf("census: %s file has no column %q for attribute %s", r.Format(), a.Column, a.Name)
		}
		for _, b := range bs[:i] {
			if b.attr.Name == a.Name {
				return nil, fmt.Errorf("census: attribute %s chosen twice", a.Name)
			}
		}
		bs[i] = &binner{attr: a, col: col, policy: policy, index: map[string]int{}}
	}
	return bs, nil
}

// countMissing counts the missing values of a row by attribute and
// reports whether there were any.
func countMissing(bs []*binner, row []int32) bool {
	found := false
	for j, c := range row {
		if c == missIndex {
			bs[j].miss++
			found = true
		}
	}
	return found
}

// readRow sets row to the provisional categories of a record.
func readRow(bs []*binner, fields []string, row []int32, line int) error {
	for j, b := range bs {
		c, err := b.category(fields[b.col])
		if err != nil {
			return &geo.ParseError{Line: line, Column: b.col + 1, Err: err}
		}
		row[j] = int32(c)
	}
	return nil
}

// finish fixes the axes and turns the provisional indices into symbols.
func (t *Table) finish(bs []*binner, idx []int32) {
	perms := make([][]int, len(bs))
	t.Axes = make([]Axis, len(bs))
	for j, b := range bs {
		t.Axes[j], perms[j] = b.finish()
	}
	m := len(bs)
	t.Data = make([]int, len(idx)/m)
	for i := range t.Data {
		x := 0
		for j, ax := range t.Axes {
			c := int(idx[i*m+j])
			switch {
			case c == missIndex:
				c = len(ax.Labels) - 1
			case perms[j] != nil:
				c = perms[j][c]
			}
			x = x*len(ax.Labels) + c
		}
		t.Data[i] = x
	}
}
