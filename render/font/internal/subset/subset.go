// Package subset cuts a TrueType font down to the characters the canvas
// draws, and finds those characters in the sources.
//
// Subset keeps every glyph id, advance and outline of the runes it is
// given (and of the glyphs their composites are made of) and empties the
// rest: their outlines go, their metrics become zeros, the cmap maps only
// the kept runes, glyph names and the hinting programs (which
// golang.org/x/image does not run) are dropped. The result parses with
// golang.org/x/image/font/sfnt and rasterises the kept runes exactly as
// the original does.
package subset

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"slices"
	"sort"
)

var be = binary.BigEndian

// dropped are tables the subset leaves out: TrueType hinting (fpgm, prep,
// cvt , gasp: x/image rasterises outlines unhinted) and device metrics
// that would describe glyphs no longer there.
var dropped = map[string]bool{"fpgm": true, "prep": true, "cvt ": true, "gasp": true, "hdmx": true, "LTSH": true, "VDMX": true, "DSIG": true}

// required are the tables Subset rewrites or reads; a font without one
// of them is refused.
var required = []string{"head", "hhea", "hmtx", "maxp", "loca", "glyf", "cmap"}

type font struct {
	tables map[string][]byte
	order  []string // tags as they appear in the table directory
}

func parse(ttf []byte) (*font, error) {
	if len(ttf) < 12 {
		return nil, fmt.Errorf("font: %d bytes, too short for a table directory", len(ttf))
	}
	if v := be.Uint32(ttf); v != 0x00010000 && v != 0x74727565 /* 'true' */ {
		return nil, fmt.Errorf("font: sfnt version %#08x is not TrueType outlines", v)
	}
	n := int(be.Uint16(ttf[4:]))
	if 12+16*n > len(ttf) {
		return nil, fmt.Errorf("font: %d table records run past the end", n)
	}
	f := &font{tables: map[string][]byte{}}
	for i := range n {
		rec := ttf[12+16*i:]
		tag := string(rec[:4])
		off, length := be.Uint32(rec[8:]), be.Uint32(rec[12:])
		if uint64(off)+uint64(length) > uint64(len(ttf)) {
			return nil, fmt.Errorf("font: table %q runs past the end", tag)
		}
		f.tables[tag] = ttf[off : off+length]
		f.order = append(f.order, tag)
	}
	for _, tag := range required {
		if f.tables[tag] == nil {
			return nil, fmt.Errorf("font: no %q table", tag)
		}
	}
	if len(f.tables["head"]) < 54 || len(f.tables["maxp"]) < 6 || len(f.tables["hhea"]) < 36 {
		return nil, fmt.Errorf("font: head, maxp or hhea table too short")
	}
	return f, nil
}

// glyphs returns each glyph's data, from loca and glyf.
func (f *font) glyphs() ([][]byte, error) {
	n := int(be.Uint16(f.tables["maxp"][4:]))
	long := be.Uint16(f.tables["head"][50:]) == 1
	loca, glyf := f.tables["loca"], f.tables["glyf"]
	offset := func(i int) (int, bool) {
		if long {
			if 4*i+4 > len(loca) {
				return 0, false
			}
			return int(be.Uint32(loca[4*i:])), true
		}
		if 2*i+2 > len(loca) {
			return 0, false
		}
		return 2 * int(be.Uint16(loca[2*i:])), true
	}
	gs := make([][]byte, n)
	for i := range n {
		a, ok1 := offset(i)
		b, ok2 := offset(i + 1)
		if !ok1 || !ok2 || a > b || b > len(glyf) {
			return nil, fmt.Errorf("font: loca entry %d out of range", i)
		}
		gs[i] = glyf[a:b]
	}
	return gs, nil
}

// cmap returns the font's rune → glyph id map, from its Windows Unicode
// BMP (3, 1) or Unicode (0, 3) format 4 subtable.
func (f *font) cmap() (map[rune]uint16, error) {
	c := f.tables["cmap"]
	if len(c) < 4 {
		return nil, fmt.Errorf("font: cmap too short")
	}
	n := int(be.Uint16(c[2:]))
	for i := range n {
		if 4+8*i+8 > len(c) {
			break
		}
		rec := c[4+8*i:]
		pid, eid, off := be.Uint16(rec), be.Uint16(rec[2:]), int(be.Uint32(rec[4:]))
		if !(pid == 3 && eid == 1) && !(pid == 0 && eid == 3) {
			continue
		}
		if off+4 > len(c) || be.Uint16(c[off:]) != 4 {
			continue
		}
		return format4(c[off:])
	}
	return nil, fmt.Errorf("font: no Unicode BMP format 4 cmap")
}

func format4(t []byte) (map[rune]uint16, error) {
	if len(t) < 14 {
		return nil, fmt.Errorf("font: cmap format 4 too short")
	}
	segs := int(be.Uint16(t[6:])) / 2
	if 16+8*segs > len(t) {
		return nil, fmt.Errorf("font: cmap format 4 segments run past the end")
	}
	end, start := t[14:], t[16+2*segs:]
	delta, rangeOff := t[16+4*segs:], t[16+6*segs:]
	m := map[rune]uint16{}
	for s := range segs {
		e, st := int(be.Uint16(end[2*s:])), int(be.Uint16(start[2*s:]))
		d, ro := be.Uint16(delta[2*s:]), int(be.Uint16(rangeOff[2*s:]))
		for c := st; c <= e && c != 0xffff; c++ {
			var g uint16
			if ro == 0 {
				g = uint16(c) + d
			} else {
				at := 16 + 6*segs + 2*s + ro + 2*(c-st)
				if at+2 > len(t) {
					return nil, fmt.Errorf("font: cmap format 4 glyph array out of range")
				}
				if g = be.Uint16(t[at:]); g != 0 {
					g += d
				}
			}
			if g != 0 {
				m[rune(c)] = g
			}
		}
	}
	return m, nil
}

// Subset returns ttf cut down to runes. It is an error for ttf not to
// have one of the runes, or for a rune to be outside the Basic
// Multilingual Plane.
func Subset(ttf []byte, runes []rune) ([]byte, error) {
	f, err := parse(ttf)
	if err != nil {
		return nil, err
	}
	gs, err := f.glyphs()
	if err != nil {
		return nil, err
	}
	full, err := f.cmap()
	if err != nil {
		return nil, err
	}
	keep := make([]bool, len(gs))
	keep[0] = true // .notdef: what a rune without a glyph draws
	cmap := map[rune]uint16{}
	var missing []rune
	for _, r := range runes {
		g, ok := full[r]
		if !ok || r > 0xfffe {
			missing = append(missing, r)
			continue
		}
		cmap[r] = g
		keep[g] = true
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("font: no glyph for %q", string(missing))
	}
	// Composite glyphs need their components: follow them to a fixed
	// point (components may be composites too).
	for changed := true; changed; {
		changed = false
		for g, data := range gs {
			if !keep[g] {
				continue
			}
			comps, err := components(data)
			if err != nil {
				return nil, fmt.Errorf("font: glyph %d: %v", g, err)
			}
			for _, c := range comps {
				if int(c) >= len(gs) {
					return nil, fmt.Errorf("font: glyph %d: component %d out of range", g, c)
				}
				if !keep[c] {
					keep[c], changed = true, true
				}
			}
		}
	}

	// glyf and loca: kept glyphs without their instructions, the others
	// empty; offsets stay even so the short loca format can hold them.
	var glyf []byte
	offsets := make([]int, len(gs)+1)
	for g, data := range gs {
		offsets[g] = len(glyf)
		if keep[g] && len(data) > 0 {
			d, err := stripInstructions(data)
			if err != nil {
				return nil, fmt.Errorf("font: glyph %d: %v", g, err)
			}
			glyf = append(glyf, d...)
			if len(glyf)%2 == 1 {
				glyf = append(glyf, 0)
			}
		}
	}
	offsets[len(gs)] = len(glyf)
	long := len(glyf) > 2*0xffff
	var loca []byte
	for _, o := range offsets {
		if long {
			loca = be.AppendUint32(loca, uint32(o))
		} else {
			loca = be.AppendUint16(loca, uint16(o/2))
		}
	}

	out := map[string][]byte{"glyf": glyf, "loca": loca, "cmap": encodeCmap(cmap)}

	// hmtx: the kept glyphs' metrics, zeros for the others.
	hhea := f.tables["hhea"]
	nh := int(be.Uint16(hhea[34:]))
	hmtx := slices.Clone(f.tables["hmtx"])
	if 4*nh+2*(len(gs)-nh) > len(hmtx) || nh == 0 || nh > len(gs) {
		return nil, fmt.Errorf("font: hmtx too short for %d metrics", nh)
	}
	for g := range gs {
		if keep[g] {
			continue
		}
		if g < nh {
			copy(hmtx[4*g:4*g+4], []byte{0, 0, 0, 0})
		} else {
			copy(hmtx[4*nh+2*(g-nh):][:2], []byte{0, 0})
		}
	}
	out["hmtx"] = hmtx

	head := slices.Clone(f.tables["head"])
	be.PutUint32(head[8:], 0) // checkSumAdjustment, set below
	if long {
		be.PutUint16(head[50:], 1)
	} else {
		be.PutUint16(head[50:], 0)
	}
	out["head"] = head

	// maxp: no instructions any more.
	if maxp := slices.Clone(f.tables["maxp"]); be.Uint32(maxp) == 0x00010000 && len(maxp) >= 32 {
		be.PutUint16(maxp[14:], 1) // maxZones: no twilight zone
		for at := 16; at <= 26; at += 2 {
			be.PutUint16(maxp[at:], 0) // maxTwilightPoints … maxSizeOfInstructions
		}
		out["maxp"] = maxp
	}

	// post: version 3, no glyph names.
	if post := f.tables["post"]; len(post) >= 32 {
		p := slices.Clone(post[:32])
		be.PutUint32(p, 0x00030000)
		out["post"] = p
	}

	// OS/2: the first and last characters mapped.
	if os2 := f.tables["OS/2"]; len(os2) >= 68 {
		o := slices.Clone(os2)
		lo, hi := rune(0xffff), rune(0)
		for r := range cmap {
			lo, hi = min(lo, r), max(hi, r)
		}
		be.PutUint16(o[64:], uint16(lo))
		be.PutUint16(o[66:], uint16(hi))
		out["OS/2"] = o
	}

	var tags []string
	for _, tag := range f.order {
		if dropped[tag] {
			continue
		}
		if out[tag] == nil {
			out[tag] = f.tables[tag]
		}
		tags = append(tags, tag)
	}
	return assemble(tags, out), nil
}

// Composite glyph flags.
const (
	argsAreWords    = 0x0001
	haveScale       = 0x0008
	moreComponents  = 0x0020
	haveXYScale     = 0x0040
	haveTwoByTwo    = 0x0080
	haveInstruction = 0x0100
)

// components returns the glyph ids a composite glyph is built from (none
// for a simple glyph).
func components(g []byte) ([]uint16, error) {
	if len(g) < 10 || int16(be.Uint16(g)) >= 0 {
		return nil, nil
	}
	var ids []uint16
	for at := 10; ; {
		if at+4 > len(g) {
			return nil, fmt.Errorf("composite runs past its end")
		}
		flags := be.Uint16(g[at:])
		ids = append(ids, be.Uint16(g[at+2:]))
		at += 4 + compArgs(flags)
		if flags&moreComponents == 0 {
			return ids, nil
		}
	}
}

// compArgs is the size of a component's arguments and transform.
func compArgs(flags uint16) int {
	n := 2
	if flags&argsAreWords != 0 {
		n = 4
	}
	switch {
	case flags&haveScale != 0:
		n += 2
	case flags&haveXYScale != 0:
		n += 4
	case flags&haveTwoByTwo != 0:
		n += 8
	}
	return n
}

// stripInstructions returns a glyph without its hinting instructions.
func stripInstructions(g []byte) ([]byte, error) {
	if len(g) < 10 {
		return nil, fmt.Errorf("glyph header too short")
	}
	nc := int16(be.Uint16(g))
	if nc >= 0 {
		at := 10 + 2*int(nc) // instructionLength
		if at+2 > len(g) {
			return nil, fmt.Errorf("simple glyph runs past its end")
		}
		n := int(be.Uint16(g[at:]))
		if at+2+n > len(g) {
			return nil, fmt.Errorf("instructions run past the glyph's end")
		}
		out := slices.Clone(g[:at])
		out = append(out, 0, 0)
		return append(out, g[at+2+n:]...), nil
	}
	out := slices.Clone(g)
	for at := 10; ; {
		if at+4 > len(out) {
			return nil, fmt.Errorf("composite runs past its end")
		}
		flags := be.Uint16(out[at:])
		be.PutUint16(out[at:], flags&^haveInstruction)
		at += 4 + compArgs(flags)
		if flags&moreComponents == 0 {
			return out[:at], nil
		}
	}
}

// encodeCmap writes a cmap with one format 4 subtable, for both the
// Unicode BMP (0, 3) and Windows Unicode BMP (3, 1) encodings.
func encodeCmap(m map[rune]uint16) []byte {
	runes := make([]rune, 0, len(m))
	for r := range m {
		runes = append(runes, r)
	}
	sort.Slice(runes, func(i, j int) bool { return runes[i] < runes[j] })
	// Segments of consecutive runes whose glyph ids are consecutive too:
	// each maps by a delta alone.
	type seg struct{ start, end, delta uint16 }
	var segs []seg
	for _, r := range runes {
		g := m[r]
		if n := len(segs); n > 0 && rune(segs[n-1].end)+1 == r && uint16(r)+segs[n-1].delta == g {
			segs[n-1].end = uint16(r)
			continue
		}
		segs = append(segs, seg{uint16(r), uint16(r), g - uint16(r)})
	}
	segs = append(segs, seg{0xffff, 0xffff, 1}) // the required last segment
	n := len(segs)
	sr := 1
	es := 0
	for sr*2 <= n {
		sr *= 2
		es++
	}
	var t []byte
	t = be.AppendUint16(t, 4)
	t = be.AppendUint16(t, uint16(16+8*n))
	t = be.AppendUint16(t, 0) // language
	t = be.AppendUint16(t, uint16(2*n))
	t = be.AppendUint16(t, uint16(2*sr))
	t = be.AppendUint16(t, uint16(es))
	t = be.AppendUint16(t, uint16(2*n-2*sr))
	for _, s := range segs {
		t = be.AppendUint16(t, s.end)
	}
	t = be.AppendUint16(t, 0) // reservedPad
	for _, s := range segs {
		t = be.AppendUint16(t, s.start)
	}
	for _, s := range segs {
		t = be.AppendUint16(t, s.delta)
	}
	for range segs {
		t = be.AppendUint16(t, 0) // idRangeOffset
	}
	var c []byte
	c = be.AppendUint16(c, 0) // version
	c = be.AppendUint16(c, 2)
	c = append(c, 0, 0, 0, 3, 0, 0, 0, 20) // Unicode BMP → offset 20
	c = append(c, 0, 3, 0, 1, 0, 0, 0, 20) // Windows Unicode BMP → the same table
	return append(c, t...)
}

// assemble writes the table directory and the tables (each padded to 4
// bytes), with checksums and head's checkSumAdjustment.
func assemble(order []string, tables map[string][]byte) []byte {
	tags := slices.Clone(order)
	slices.Sort(tags) // the directory is sorted by tag
	n := len(tags)
	sr, es := 1, 0
	for sr*2 <= n {
		sr *= 2
		es++
	}
	var out bytes.Buffer
	hdr := be.AppendUint32(nil, 0x00010000)
	hdr = be.AppendUint16(hdr, uint16(n))
	hdr = be.AppendUint16(hdr, uint16(16*sr))
	hdr = be.AppendUint16(hdr, uint16(es))
	hdr = be.AppendUint16(hdr, uint16(16*n-16*sr))
	out.Write(hdr)
	off := 12 + 16*n
	// Tables are laid out in the original file's order.
	offsets := map[string]int{}
	for _, tag := range order {
		offsets[tag] = off
		off += (len(tables[tag]) + 3) &^ 3
	}
	for _, tag := range tags {
		t := tables[tag]
		rec := []byte(tag)
		rec = be.AppendUint32(rec, checksum(t))
		rec = be.AppendUint32(rec, uint32(offsets[tag]))
		rec = be.AppendUint32(rec, uint32(len(t)))
		out.Write(rec)
	}
	for _, tag := range order {
		t := tables[tag]
		out.Write(t)
		out.Write(make([]byte, (4-len(t)%4)%4))
	}
	b := out.Bytes()
	if at, ok := offsets["head"]; ok {
		be.PutUint32(b[at+8:], 0xb1b0afba-checksum(b))
	}
	return b
}

func checksum(b []byte) uint32 {
	var s uint32
	for i := 0; i < len(b); i += 4 {
		var w [4]byte
		copy(w[:], b[i:])
		s += be.Uint32(w[:])
	}
	return s
}
