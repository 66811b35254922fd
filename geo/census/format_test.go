package census

import (
	"errors"
	"testing"
)

// TestLayouts holds every census layout's names to its format and
// the refusal's list to the records.
func TestLayouts(t *testing.T) {
	for _, l := range Layouts() {
		for _, n := range l.Names {
			if f, err := ParseFormat(n); err != nil || f != l.Format {
				t.Errorf("ParseFormat(%q) = %v, %v, want %v", n, f, err, l.Format)
			}
		}
		if l.Format.String() != l.Name || !IsFormat(l.Name) {
			t.Errorf("%v: name %q", l.Format, l.Name)
		}
	}
	if f, err := ParseFormat("USCensus1990"); err != nil || f != Census1990 {
		t.Errorf("ParseFormat(USCensus1990) = %v, %v", f, err)
	}
	_, err := ParseFormat("gowalla")
	if want := `census: unknown census format "gowalla" (want adult or census1990)`; !errors.Is(err, ErrUnknownFormat) || err.Error() != want {
		t.Errorf("ParseFormat(gowalla) = %v, want %s", err, want)
	}
	if IsFormat("csv") || Format(9).String() != "Format(9)" {
		t.Error("csv is no census format")
	}
}
