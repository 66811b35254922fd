package human

import "testing"

func TestLatLon(t *testing.T) {
	for _, tc := range []struct{ got, want string }{
		{Lat(40.48444), "40.4844°N"}, {Lat(-33.86882), "33.8688°S"}, {Lat(0), "0.0000°N"},
		{Lon(-73.70204), "73.7020°W"}, {Lon(151.20929), "151.2093°E"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %s, want %s", tc.got, tc.want)
		}
	}
}

func TestOrList(t *testing.T) {
	for want, words := range map[string][]string{"": nil, "a": {"a"}, "a or b": {"a", "b"}, "a, b or c": {"a", "b", "c"}} {
		if got := OrList(words); got != want {
			t.Errorf("OrList(%q) = %q, want %q", words, got, want)
		}
	}
}
