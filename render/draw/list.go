package draw

import (
	"fmt"
	"strings"
	"sync"
)

// Color is a non-premultiplied sRGB colour.
type Color struct{ R, G, B, A uint8 }

// Hex formats c as #rrggbb or #rrggbbaa.
func (c Color) Hex() string {
	if c.A == 255 {
		return fmt.Sprintf("#%02x%02x%02x", c.R, c.G, c.B)
	}
	return fmt.Sprintf("#%02x%02x%02x%02x", c.R, c.G, c.B, c.A)
}

// Kind says what an Item draws.
type Kind uint8

// Item kinds.
const (
	FillRect   Kind = iota // X, Y, W, H
	StrokeRect             // X, Y, W, H, Width (line width)
	FillCircle             // X, Y centre, R radius
	Line                   // X, Y to X2, Y2, Width
	Text                   // Text at X, Y (top of the line box), Size px, Align
)

var KindNames = [...]string{"rect", "frame", "circle", "line", "text"}

// Align is the horizontal anchor of a text item.
type Align uint8

// Alignments.
const (
	AlignLeft Align = iota
	AlignCenter
	AlignRight
)

// Item is one drawing operation.
type Item struct {
	Kind   Kind
	X, Y   float32
	W, H   float32
	X2, Y2 float32
	R      float32
	Width  float32 // stroke width
	Size   float32 // text size (em) in pixels
	Align  Align
	Color  Color
	Text   string
}

// List is a display list: items painted in order over a background, and
// the keys that say what its colours mean.
type List struct {
	Width, Height float32 // the canvas, device pixels
	Background    Color
	Items         []Item
	Keys          []Key
	// Hits are the places a click or a tap picks a GPU (the zoom's way
	// in): not painted; a later one covers an earlier.
	Hits []Hit
}

// Hit is a part of the picture that stands for one GPU of the plan.
type Hit struct {
	Rect
	GPU int
}

// Hit records that a click inside x, y, w, h picks GPU gpu.
func (l *List) Hit(x, y, w, h float32, gpu int) {
	l.Hits = append(l.Hits, Hit{Rect{x, y, w, h}, gpu})
}

// HitAt is the GPU a click at x, y picks: the last hit that holds the
// point; false where none does.
func (l List) HitAt(x, y float32) (int, bool) {
	for i := len(l.Hits) - 1; i >= 0; i-- {
		h := l.Hits[i]
		if x >= h.X && x < h.X+h.W && y >= h.Y && y < h.Y+h.H {
			return h.GPU, true
		}
	}
	return 0, false
}

// Key says what a colour means, or hatching in it: a legend entry, or a
// label drawn on the mark itself. A builder records one for every colour
// that carries meaning, so a test can check that nothing on the canvas is
// left unexplained (PICTURES.md, rule 5). Keys are not painted.
type Key struct {
	Color Color
	Hatch bool
	Label string
}

// Key records that c means label.
func (l *List) Key(c Color, label string) { l.Keys = append(l.Keys, Key{Color: c, Label: label}) }

// HatchKey records that hatching in c means label.
func (l *List) HatchKey(c Color, label string) {
	l.Keys = append(l.Keys, Key{Color: c, Hatch: true, Label: label})
}

// add appends it. Kept out of line: inlined, every drawing call site
// carried its own copy of append's growth code — about 54 kB of main.wasm,
// gzipped — for a call a frame's few thousand items do not feel.
//
//go:noinline
func (l *List) add(it Item) { l.Items = append(l.Items, it) }

// Rect adds a filled rectangle.
func (l *List) Rect(x, y, w, h float32, c Color) {
	l.add(Item{Kind: FillRect, X: x, Y: y, W: w, H: h, Color: c})
}

// Frame adds a rectangle outline of the given stroke width.
func (l *List) Frame(x, y, w, h, width float32, c Color) {
	l.add(Item{Kind: StrokeRect, X: x, Y: y, W: w, H: h, Width: width, Color: c})
}

// Circle adds a filled circle.
func (l *List) Circle(x, y, r float32, c Color) {
	l.add(Item{Kind: FillCircle, X: x, Y: y, R: r, Color: c})
}

// Segment adds a straight line.
func (l *List) Segment(x1, y1, x2, y2, width float32, c Color) {
	l.add(Item{Kind: Line, X: x1, Y: y1, X2: x2, Y2: y2, Width: width, Color: c})
}

// Label adds a line of short Latin text.
func (l *List) Label(x, y, size float32, a Align, c Color, s string) {
	l.add(Item{Kind: Text, X: x, Y: y, Size: size, Align: a, Color: c, Text: s})
}

// String is the golden-file form: one item per line, numbers rounded to
// a tenth of a pixel.
func (l List) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "canvas %s %s bg %s\n", num(l.Width), num(l.Height), l.Background.Hex())
	for _, it := range l.Items {
		b.WriteString(KindNames[it.Kind])
		switch it.Kind {
		case FillRect:
			fmt.Fprintf(&b, " %s %s %s %s", num(it.X), num(it.Y), num(it.W), num(it.H))
		case StrokeRect:
			fmt.Fprintf(&b, " %s %s %s %s w=%s", num(it.X), num(it.Y), num(it.W), num(it.H), num(it.Width))
		case FillCircle:
			fmt.Fprintf(&b, " %s %s r=%s", num(it.X), num(it.Y), num(it.R))
		case Line:
			fmt.Fprintf(&b, " %s %s -> %s %s w=%s", num(it.X), num(it.Y), num(it.X2), num(it.Y2), num(it.Width))
		case Text:
			fmt.Fprintf(&b, " %s %s size=%s align=%d %q", num(it.X), num(it.Y), num(it.Size), it.Align, it.Text)
		}
		fmt.Fprintf(&b, " %s\n", it.Color.Hex())
	}
	for _, k := range l.Keys {
		h := ""
		if k.Hatch {
			h = " hatch"
		}
		fmt.Fprintf(&b, "key %s%s %q\n", k.Color.Hex(), h, k.Label)
	}
	return b.String()
}

// LineHeight is a text item's line box, in ems: the painter puts the
// baseline at the font's ascent below the item's Y (render/paint).
const LineHeight = 1.156

// Bounds is the rectangle an item covers, in device pixels: a text item's
// line box (its measured width, LineHeight ems tall, placed by its
// alignment), a shape's extent, a line's bounding box (its width around
// it).
func (it Item) Bounds() Rect {
	switch it.Kind {
	case Text:
		w := TextWidth(it.Text, it.Size)
		x := it.X
		switch it.Align {
		case AlignCenter:
			x -= w / 2
		case AlignRight:
			x -= w
		}
		return Rect{x, it.Y, w, it.Size * LineHeight}
	case FillCircle:
		return Rect{it.X - it.R, it.Y - it.R, 2 * it.R, 2 * it.R}
	case Line:
		x0, x1 := min(it.X, it.X2), max(it.X, it.X2)
		y0, y1 := min(it.Y, it.Y2), max(it.Y, it.Y2)
		h := it.Width / 2
		return Rect{x0 - h, y0 - h, x1 - x0 + it.Width, y1 - y0 + it.Width}
	}
	return Rect{it.X, it.Y, it.W, it.H}
}

// Words are a picture's words in the reader's language: T is the text of
// a catalogue key (canvas.*) with its {name} placeholders filled from
// args, name, value, name, value …; Lang is the language, for the units
// that read differently in it (package units). The zero Words gives the
// key itself, so a builder's own tests read keys.
type Words struct {
	Lang string
	T    func(key string, args ...string) string
}

// Say is the text of key.
func (w Words) Say(key string, args ...string) string {
	if w.T == nil {
		return key
	}
	return w.T(key, args...)
}

func num(v float32) string {
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.1f", v), "0"), ".")
}

// Canvas starts a builder's display list over dst's storage: the canvas
// size and background, and the scale with its default of 1.
func Canvas(dst List, width, height, scale float32, th Theme) (List, float32) {
	if scale <= 0 {
		scale = 1
	}
	return List{Width: width, Height: height, Background: th.Background, Items: dst.Items[:0], Keys: dst.Keys[:0], Hits: dst.Hits[:0]}, scale
}

// Memo keeps strings a builder formats from values, so that a picture
// redrawn every frame formats each label once. It holds at most memoSize
// entries (then starts afresh) and is safe for concurrent use.
type Memo[K comparable] struct {
	mu sync.Mutex
	m  map[K]string
}

const memoSize = 256

// Get is the string for k, made by format the first time it is asked.
func (c *Memo[K]) Get(k K, format func() string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if s, ok := c.m[k]; ok {
		return s
	}
	return c.put(k, format())
}

// Format is Get with a function of the key alone: a caller in another
// package passes a function, not a closure over k, which the compiler
// would move to the heap there (a generic method's argument escapes
// across packages).
func (c *Memo[K]) Format(k K, format func(K) string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if s, ok := c.m[k]; ok {
		return s
	}
	return c.put(k, format(k))
}

// put keeps s for k, starting afresh when the memo is full.
func (c *Memo[K]) put(k K, s string) string {
	if c.m == nil || len(c.m) >= memoSize {
		c.m = make(map[K]string)
	}
	c.m[k] = s
	return s
}
