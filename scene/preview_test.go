//go:build preview

package scene

// The picture preview: every step of the lessons named in PREVIEW, built
// through scene as the page builds it and rasterised natively (x/image's
// vector rasteriser and Go Regular; Chinese with Noto Sans CJK when
// /usr/share/fonts/opentype/noto has it), so that a picture can be looked
// at without a browser while it is being drawn. Not the real pixels —
// the browser tests' screenshots are — and not part of make test (the
// build tag keeps it out). Each picture's rule failures are logged.
//
//	PREVIEW=ring-allreduce go test -tags preview -run TestPreview ./scene
//
// writes PREVDIR (default /tmp/prev)/ID-stepN-AT-FRAME-LANG.png. Also:
// FRAMES=desktop,phone,embed,present (default desktop), LANGS=en,zh
// (default en), ATS=start,q1,middle,q3,end (default end), STEPS=1,3,
// PENDING=1 (the step's question not yet answered), KNOBS=gpus=16,... ,
// ZOOM=node|gpu|sm with ZOOM_GPU=N (the zoom's level and GPU).
// A heavy lesson may need -timeout 30m.

import (
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/font/sfnt"
	"golang.org/x/image/math/fixed"
	"golang.org/x/image/vector"

	"github.com/gpuscope/gpuscope/engine/sim"
	"github.com/gpuscope/gpuscope/render"
	"github.com/gpuscope/gpuscope/scenarios"
)

var (
	goFont, _ = opentype.Parse(goregular.TTF)
	cjkFont   *sfnt.Font
	faces     = map[[2]int]font.Face{}
)

func init() {
	b, err := os.ReadFile("/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc")
	if err == nil {
		if c, err := sfnt.ParseCollection(b); err == nil {
			cjkFont, _ = c.Font(2)
		}
	}
}

func face(cjk bool, px float32) font.Face {
	k := [2]int{0, int(px*4 + 0.5)}
	f := goFont
	if cjk && cjkFont != nil {
		k[0], f = 1, cjkFont
	}
	if fc, ok := faces[k]; ok {
		return fc
	}
	fc, _ := opentype.NewFace(f, &opentype.FaceOptions{Size: float64(px), DPI: 72, Hinting: font.HintingNone})
	faces[k] = fc
	return fc
}

func isCJK(r rune) bool { return r > 0x2e80 && !unicode.IsSpace(r) }

func measure(s string, px float32) float32 {
	var w fixed.Int26_6
	for _, r := range s {
		a, _ := face(isCJK(r), px).GlyphAdvance(r)
		w += a
	}
	return float32(w) / 64
}

func over(dst *image.RGBA, r image.Rectangle, c render.Color) {
	draw.Draw(dst, r, image.NewUniform(color.NRGBA{c.R, c.G, c.B, c.A}), image.Point{}, draw.Over)
}

func fillPath(dst *image.RGBA, c render.Color, pts [][2]float32) {
	b := dst.Bounds()
	z := vector.NewRasterizer(b.Dx(), b.Dy())
	z.MoveTo(pts[0][0], pts[0][1])
	for _, p := range pts[1:] {
		z.LineTo(p[0], p[1])
	}
	z.ClosePath()
	z.Draw(dst, b, image.NewUniform(color.NRGBA{c.R, c.G, c.B, c.A}), image.Point{})
}

func raster(l render.List) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, int(l.Width), int(l.Height)))
	over(img, img.Bounds(), l.Background)
	for _, it := range l.Items {
		switch it.Kind {
		case render.FillRect:
			fillPath(img, it.Color, [][2]float32{{it.X, it.Y}, {it.X + it.W, it.Y}, {it.X + it.W, it.Y + it.H}, {it.X, it.Y + it.H}})
		case render.StrokeRect:
			w := it.Width
			x, y, ww, hh := it.X, it.Y, it.W, it.H
			for _, r := range [][4]float32{{x - w/2, y - w/2, ww + w, w}, {x - w/2, y + hh - w/2, ww + w, w}, {x - w/2, y + w/2, w, hh - w}, {x + ww - w/2, y + w/2, w, hh - w}} {
				fillPath(img, it.Color, [][2]float32{{r[0], r[1]}, {r[0] + r[2], r[1]}, {r[0] + r[2], r[1] + r[3]}, {r[0], r[1] + r[3]}})
			}
		case render.FillCircle:
			var pts [][2]float32
			for k := 0; k < 24; k++ {
				a := 2 * math.Pi * float64(k) / 24
				pts = append(pts, [2]float32{it.X + it.R*float32(math.Cos(a)), it.Y + it.R*float32(math.Sin(a))})
			}
			fillPath(img, it.Color, pts)
		case render.Line:
			dx, dy := it.X2-it.X, it.Y2-it.Y
			d := float32(math.Hypot(float64(dx), float64(dy)))
			if d == 0 {
				continue
			}
			nx, ny := -dy/d*it.Width/2, dx/d*it.Width/2
			fillPath(img, it.Color, [][2]float32{{it.X + nx, it.Y + ny}, {it.X2 + nx, it.Y2 + ny}, {it.X2 - nx, it.Y2 - ny}, {it.X - nx, it.Y - ny}})
		case render.Text:
			px := it.Size
			if px < 8 {
				px = 8
			}
			w := measure(it.Text, px)
			x := it.X
			switch it.Align {
			case render.AlignCenter:
				x -= w / 2
			case render.AlignRight:
				x -= w
			}
			m := face(false, px).Metrics()
			base := it.Y + float32(m.Ascent)/64 + (it.Size*render.LineHeight-float32(m.Height)/64)/2
			pen := fixed.Point26_6{X: fixed.Int26_6(x * 64), Y: fixed.Int26_6(base * 64)}
			for _, r := range it.Text {
				f := face(isCJK(r), px)
				dr, mask, mp, adv, ok := f.Glyph(pen, r)
				if ok {
					draw.DrawMask(img, dr, image.NewUniform(color.NRGBA{it.Color.R, it.Color.G, it.Color.B, it.Color.A}), image.Point{}, mask, mp, draw.Over)
				}
				pen.X += adv
			}
		}
	}
	return img
}

func TestPreview(t *testing.T) {
	ids := strings.Split(os.Getenv("PREVIEW"), ",")
	frames := os.Getenv("FRAMES")
	if frames == "" {
		frames = "desktop"
	}
	langs := os.Getenv("LANGS")
	if langs == "" {
		langs = "en"
	}
	ats := os.Getenv("ATS")
	if ats == "" {
		ats = "end"
	}
	steps := os.Getenv("STEPS")
	pending := os.Getenv("PENDING") != ""
	os.MkdirAll(prevDir(), 0o755)
	var p Picture
	var l render.List
	for _, s := range scenarios.All() {
		if !contains(ids, s.ID) {
			continue
		}
		les := prepare(t, s)
		if kv := os.Getenv("KNOBS"); kv != "" {
			cfg := s.Defaults()
			for _, a := range strings.Split(kv, ",") {
				k, v, _ := strings.Cut(a, "=")
				cfg[k] = v
			}
			var err error
			les, err = scenarios.Prepare(s, cfg)
			if err != nil {
				t.Fatal(err)
			}
		}
		for step := range les.Steps {
			if steps != "" && !contains(strings.Split(steps, ","), fmt.Sprint(step+1)) {
				continue
			}
			sr := les.Steps[step]
			for _, rf := range ruleFrames {
				if !contains(strings.Split(frames, ","), rf.name) {
					continue
				}
				for _, lang := range strings.Split(langs, ",") {
					for _, at := range strings.Split(ats, ",") {
						var tm sim.Time
						switch at {
						case "start":
							tm = sr.From
						case "middle":
							tm = middle(les, step+1)
						case "q1":
							tm = sr.From + (sr.To-sr.From)/4
						case "q3":
							tm = sr.From + (sr.To-sr.From)*3/4
						default:
							tm = sr.To
						}
						f := rf.frame
						f.Lang = lang
						zg, _ := strconv.Atoi(os.Getenv("ZOOM_GPU"))
						l = p.Build(l, Moment{Lesson: les, Step: step + 1, Time: tm, Pending: pending, Zoom: scenarios.Zoom{Level: os.Getenv("ZOOM"), GPU: zg}}, f)
						img := raster(l)
						// the stage outline
						name := fmt.Sprintf("%s/%s-step%d-%s-%s-%s%s.png", prevDir(), s.ID, step+1, at, rf.name, lang, os.Getenv("ZOOM"))
						fh, _ := os.Create(name)
						png.Encode(fh, img)
						fh.Close()
						var fails []string
						got := ruleFailures{}
						checkAll(&fails, l, f, rf.minText, lang)
						_ = got
						for _, e := range fails {
							t.Logf("%s step %d %s %s %s: %s", s.ID, step+1, at, rf.name, lang, e)
						}
					}
				}
			}
		}
	}
}

// checkAll lists every rule failure of a list (not only the first).
func checkAll(out *[]string, l render.List, f Frame, minText float32, lang string) {
	var boxes []render.Rect
	var texts []string
	stage := f.Stage
	for _, it := range l.Items {
		if it.Kind != render.Text || strings.TrimSpace(it.Text) == "" {
			continue
		}
		b := it.Bounds()
		px := it.Size
		if px < 8 {
			px = 8
		}
		rw := measure(it.Text, px) * it.Size / px
		switch it.Align {
		case render.AlignCenter:
			b.X += (b.W - rw) / 2
		case render.AlignRight:
			b.X += b.W - rw
		}
		b.W = rw
		if b.X < stage.X-1 || b.Y < stage.Y-1 || b.X+b.W > stage.X+stage.W+1 || b.Y+b.H > stage.Y+stage.H+1 {
			*out = append(*out, fmt.Sprintf("outside %q %v", it.Text, b))
		}
		if it.Size < minText {
			*out = append(*out, fmt.Sprintf("small %q %.1f", it.Text, it.Size))
		}
		for i, o := range boxes {
			if overlap(b, o) {
				*out = append(*out, fmt.Sprintf("overlap %q over %q", it.Text, texts[i]))
				break
			}
		}
		boxes = append(boxes, b)
		texts = append(texts, it.Text)
		if lang == "zh" {
			if w := englishWord(it.Text); w != "" {
				*out = append(*out, fmt.Sprintf("english %q", it.Text))
			}
		}
	}
	if c, ok := unkeyed(l, f.Theme); ok {
		*out = append(*out, "unkeyed "+c.Hex())
	}
}

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

func prevDir() string {
	if d := os.Getenv("PREVDIR"); d != "" {
		return d
	}
	return "/tmp/prev"
}
