package output

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"strings"
	"testing"

	"github.com/privmap/privmap/app/build"
)

// TestStampPNG checks that a stamped PNG decodes to the same pixels and
// carries a tEXt chunk "Software" with a valid CRC (png.Decode checks
// every chunk's CRC) naming privmap's version.
func TestStampPNG(t *testing.T) {
	img := image.NewRGBA(image.Rect(0, 0, 3, 2))
	img.Set(1, 1, color.RGBA{200, 10, 10, 255})
	var plain, stamped bytes.Buffer
	if err := png.Encode(&plain, img); err != nil {
		t.Fatal(err)
	}
	if err := WritePNG(&stamped, img); err != nil {
		t.Fatal(err)
	}
	got, err := png.Decode(bytes.NewReader(stamped.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	r, g, b, a := got.At(1, 1).RGBA()
	if [4]uint32{r, g, b, a} != [4]uint32{200 * 257, 10 * 257, 10 * 257, 0xffff} || got.Bounds() != img.Bounds() {
		t.Errorf("stamped PNG decodes to other pixels")
	}
	want := "tEXtSoftware\x00privmap " + build.Version
	if !bytes.Contains(stamped.Bytes(), []byte(want)) || stamped.Len() != plain.Len()+12+len("Software\x00"+Software()) {
		t.Errorf("no Software chunk: %q", stamped.Bytes()[:80])
	}
	// A corrupted stamp fails png's CRC check: the test would see it.
	bad := bytes.Clone(stamped.Bytes())
	bad[33+8+2] ^= 1
	if _, err := png.Decode(bytes.NewReader(bad)); err == nil {
		t.Errorf("a changed Software chunk decoded")
	}
	if got := StampPNG([]byte("not a png")); string(got) != "not a png" {
		t.Errorf("StampPNG changed a file that is not a PNG: %q", got)
	}
}

// TestStampSVG checks the comment's place: after the XML declaration.
func TestStampSVG(t *testing.T) {
	got := string(StampSVG([]byte("<?xml version=\"1.0\"?>\n<svg/>\n")))
	want := "<?xml version=\"1.0\"?>\n<!-- written by " + Software() + " -->\n<svg/>\n"
	if got != want {
		t.Errorf("StampSVG:\n%s\nwant\n%s", got, want)
	}
	if got := string(StampSVG([]byte("<svg/>"))); !strings.HasPrefix(got, "<!-- written by privmap ") || !strings.HasSuffix(got, "<svg/>") {
		t.Errorf("StampSVG without declaration: %q", got)
	}
}
