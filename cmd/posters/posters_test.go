package main

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gpuscope/gpuscope/internal/course"
	"github.com/gpuscope/gpuscope/scenarios"
)

// postersDir holds the committed posters (make posters writes them), and
// courseDir the course whose handouts print some of them.
const (
	postersDir = "../../site/posters"
	courseDir  = "../../site/course"
)

// maxPosterBytes leaves room under the embed page's 150 kB budget before
// load.
const maxPosterBytes = 120_000

func TestPostersCommitted(t *testing.T) {
	for _, id := range scenarios.IDs() {
		t.Run(id, func(t *testing.T) {
			for _, lang := range posterLangs {
				checkPosters(t, id, lang)
			}
			for _, lang := range handoutLangs {
				path := filepath.Join(postersDir, course.HandoutPoster(id, lang))
				buf, err := os.ReadFile(path)
				if err != nil {
					t.Fatalf("%v (run make posters: the course's handout prints it)", err)
				}
				img, err := png.Decode(bytes.NewReader(buf))
				if err != nil {
					t.Fatalf("%s: %v", path, err)
				}
				if n := distinctColours(img, 8); n < 8 {
					t.Errorf("%s: %d distinct colours, want ≥ 8 (a blank stage?)", path, n)
				}
			}
		})
	}
}

// checkPosters checks lesson id's posters in lang, one a theme: under the
// byte budget, a picture (not a blank stage), the dark one darker; in a
// language other than English, not the English poster (issue 39: an embed
// in Chinese showed the English picture before loading).
func checkPosters(t *testing.T, id, lang string) {
	t.Helper()
	if themes[0] != "dark" || themes[1] != "light" {
		t.Fatalf("themes = %v, want [dark light]", themes)
	}
	var lum [2]float64
	for i, theme := range themes {
		path := filepath.Join(postersDir, posterName(id, theme, lang))
		buf, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (run make posters)", err)
		}
		if len(buf) >= maxPosterBytes {
			t.Errorf("%s: %d bytes, want < %d", path, len(buf), maxPosterBytes)
		}
		img, err := png.Decode(bytes.NewReader(buf))
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if w := img.Bounds().Dx(); w < 400 {
			t.Errorf("%s: %d px wide, want ≥ 400", path, w)
		}
		if n := distinctColours(img, 8); n < 8 {
			t.Errorf("%s: %d distinct colours, want ≥ 8 (a blank stage?)", path, n)
		}
		lum[i] = meanLuminance(img)
		if lang != "en" {
			en, err := os.ReadFile(filepath.Join(postersDir, posterName(id, theme, "en")))
			if err == nil && bytes.Equal(en, buf) {
				t.Errorf("%s is the English poster", path)
			}
		}
	}
	if lum[0] >= lum[1] {
		t.Errorf("%s: dark poster's mean luminance %.1f ≥ light poster's %.1f", lang, lum[0], lum[1])
	}
}

func TestPosterNames(t *testing.T) {
	if got := posterName("roofline", "dark", "en"); got != "roofline-dark.png" {
		t.Errorf("English poster: %s, want roofline-dark.png", got)
	}
	if got := posterName("roofline", "light", "zh"); got != "roofline-light-zh.png" {
		t.Errorf("Chinese poster: %s, want roofline-light-zh.png (site/loader.js asks for it)", got)
	}
	sel, err := selectShots("zh", "posters")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, sh := range shots([]string{"roofline"}, map[string]int{"roofline": 2}) {
		if sel(sh) {
			n++
			if sh.lang != "zh" || sh.handout || sh.step != 1 {
				t.Errorf("--lang zh --what posters selects %+v", sh)
			}
		}
	}
	if n != len(themes) {
		t.Errorf("--lang zh --what posters selects %d shots of a lesson, want %d (one a theme)", n, len(themes))
	}
	for _, bad := range [][2]string{{"fr", "posters"}, {"", "pictures"}, {"", ""}} {
		if _, err := selectShots(bad[0], bad[1]); err == nil {
			t.Errorf("--lang %q --what %q: no error", bad[0], bad[1])
		}
	}
}

// A poster for a lesson that no longer exists would be shipped for nothing.
func TestNoStrayPosters(t *testing.T) {
	ids := scenarios.IDs()
	files, err := filepath.Glob(filepath.Join(postersDir, "*.png"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".png")
		ok := false
		for _, id := range ids {
			for _, theme := range themes {
				for _, lang := range posterLangs {
					ok = ok || name+".png" == posterName(id, theme, lang)
				}
			}
			for _, lang := range handoutLangs {
				ok = ok || name+".png" == course.HandoutPoster(id, lang)
			}
		}
		if !ok {
			t.Errorf("%s is neither %s nor %s of a lesson (a renamed lesson's poster?)", f, posterName("ID", "THEME", "LANG"), course.HandoutPoster("ID", "LANG"))
		}
	}
}

// distinctColours counts the distinct colours of img, stopping at limit.
func distinctColours(img image.Image, limit int) int {
	seen := map[color.RGBA]bool{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			seen[color.RGBAModel.Convert(img.At(x, y)).(color.RGBA)] = true
			if len(seen) >= limit {
				return len(seen)
			}
		}
	}
	return len(seen)
}

// meanLuminance is the mean Rec. 709 luma of img, 0–255.
func meanLuminance(img image.Image) float64 {
	b := img.Bounds()
	var sum float64
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			c := color.RGBAModel.Convert(img.At(x, y)).(color.RGBA)
			sum += 0.2126*float64(c.R) + 0.7152*float64(c.G) + 0.0722*float64(c.B)
		}
	}
	return sum / float64(b.Dx()*b.Dy())
}

// samePixels fails at the first pixel where a and b differ. PNG does not
// keep an image's origin: pixels are compared from each one's top left.
func samePixels(t *testing.T, a, b image.Image) {
	t.Helper()
	ra, rb := a.Bounds(), b.Bounds()
	if ra.Size() != rb.Size() {
		t.Fatalf("sizes %v and %v differ", ra.Size(), rb.Size())
	}
	for y := 0; y < ra.Dy(); y++ {
		for x := 0; x < ra.Dx(); x++ {
			ca := color.NRGBAModel.Convert(a.At(ra.Min.X+x, ra.Min.Y+y))
			cb := color.NRGBAModel.Convert(b.At(rb.Min.X+x, rb.Min.Y+y))
			if ca != cb {
				t.Fatalf("pixel (%d, %d): %v, then %v", x, y, ca, cb)
			}
		}
	}
}

// picture is a test image with n distinct colours (n ≤ 65536), every row
// a shuffled run of them, some translucent.
func picture(w, h, n int) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(3, 5, 3+w, 5+h)) // not at the origin
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			k := (x*7 + y*13) % n
			a := uint8(255)
			if k%5 == 0 {
				a = uint8(64 + k%128)
			}
			img.SetNRGBA(3+x, 5+y, color.NRGBA{uint8(k), uint8(k >> 8), uint8(255 - k), a})
		}
	}
	return img
}

func encodePNG(t *testing.T, img image.Image) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func decodePNG(t *testing.T, buf []byte) image.Image {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(buf))
	if err != nil {
		t.Fatal(err)
	}
	return img
}

func TestToPalettedIsExact(t *testing.T) {
	for _, n := range []int{1, 2, 17, 256} {
		img := picture(64, 40, n)
		p, colours := toPaletted(img)
		if p == nil {
			t.Fatalf("%d colours: toPaletted returned nil", n)
		}
		if colours != n || len(p.Palette) != n {
			t.Errorf("%d colours: counted %d, palette of %d", n, colours, len(p.Palette))
		}
		samePixels(t, img, p)
		// And through PNG and back.
		samePixels(t, img, decodePNG(t, encodePNG(t, p)))
	}
}

func TestToPalettedRefusesManyColours(t *testing.T) {
	p, colours := toPaletted(picture(64, 40, 257))
	if p != nil || colours != 257 {
		t.Errorf("257 colours: toPaletted = %v, %d; want nil, 257", p != nil, colours)
	}
}

func TestCompressIsLossless(t *testing.T) {
	for _, n := range []int{12, 256, 2000} {
		img := picture(120, 70, n)
		in := encodePNG(t, img)
		out, colours, err := compress(in)
		if err != nil {
			t.Fatal(err)
		}
		if want := min(n, 257); colours != want {
			t.Errorf("%d colours: compress counted %d, want %d", n, colours, want)
		}
		samePixels(t, img, decodePNG(t, out))
	}
	// A real poster too, when one is there.
	files, _ := filepath.Glob(filepath.Join(postersDir, "*.png"))
	if len(files) > 0 {
		in, err := os.ReadFile(files[0])
		if err != nil {
			t.Fatal(err)
		}
		out, _, err := compress(in)
		if err != nil {
			t.Fatal(err)
		}
		samePixels(t, decodePNG(t, in), decodePNG(t, out))
	}
	if _, _, err := compress([]byte("not a png")); err == nil {
		t.Error("compress accepted bytes that are not a PNG")
	}
}

func TestSelectIDs(t *testing.T) {
	all := []string{"a", "b", "c"}
	for _, tc := range []struct {
		only string
		want []string
		err  bool
	}{
		{"", all, false},
		{"  ", all, false},
		{"c,a", []string{"a", "c"}, false},
		{" b , b ", []string{"b"}, false},
		{"a,zzz", nil, true},
		{",", nil, true},
	} {
		got, err := selectIDs(all, tc.only)
		if (err != nil) != tc.err || !slices.Equal(got, tc.want) {
			t.Errorf("selectIDs(%q) = %v, %v; want %v, error %v", tc.only, got, err, tc.want, tc.err)
		}
	}
}

func TestEmbedURL(t *testing.T) {
	got := embedURL("http://127.0.0.1:1", "ring-allreduce", "light", "zh")
	want := "http://127.0.0.1:1/embed.html#scenario=ring-allreduce&load=auto&theme=light&lang=zh"
	if got != want {
		t.Errorf("embedURL = %q, want %q", got, want)
	}
}

// The handout figures are drawn at the step of the handout's first table,
// answered, in the light theme and the page's language; the embed posters
// at step 1, unanswered, in each theme and language.
func TestShots(t *testing.T) {
	steps, err := course.HandoutSteps(courseDir)
	if err != nil {
		t.Fatal(err)
	}
	ids := []string{"roofline", "zero-stages"}
	got := shots(ids, steps)
	if len(got) != len(ids)*(len(themes)*len(posterLangs)+len(handoutLangs)) {
		t.Fatalf("%d shots for %d lessons: %+v", len(got), len(ids), got)
	}
	for _, sh := range got {
		handout := strings.Contains(sh.name, "-handout-")
		switch {
		case handout != sh.handout:
			t.Errorf("%+v: handout %v, named %s", sh, sh.handout, sh.name)
		case !handout && (sh.step != 1 || sh.answer || sh.name != posterName(sh.id, sh.theme, sh.lang)):
			t.Errorf("embed poster %+v: want step 1, unanswered, %s", sh, posterName("ID", "THEME", sh.lang))
		case handout && (sh.step != steps[sh.id] || !sh.answer || sh.theme != "light" || sh.name != course.HandoutPoster(sh.id, sh.lang)):
			t.Errorf("handout figure %+v: want step %d, answered, light", sh, steps[sh.id])
		}
		if sh.id == "zero-stages" && handout && sh.step != 3 {
			t.Errorf("zero-stages' handout figure at step %d, want 3 (its first table's)", sh.step)
		}
	}
}
