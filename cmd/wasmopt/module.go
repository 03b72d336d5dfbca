package main

import (
	"bytes"
	"fmt"
)

// Section ids (WebAssembly core specification, section 5.5).
const (
	secImport    = 2
	secCode      = 10
	secData      = 11
	secDataCount = 12
)

var header = []byte{0x00, 'a', 's', 'm', 0x01, 0x00, 0x00, 0x00}

// A Module is a WebAssembly binary split into its sections, with the data
// section decoded. Every other section is kept as the bytes it was read
// from.
type Module struct {
	sections []section
	data     int // index in sections of the data section, or -1
	segs     []Segment
	// memImported: memory 0 is imported, so its initial contents are not
	// known to be zeros.
	memImported bool
}

type section struct {
	id   byte
	body []byte // the section's contents, without its id and size
	at   int    // body's offset in the file
}

// A Segment is one data segment.
type Segment struct {
	// Flag is the segment's kind as encoded: 0 active in memory 0, 1
	// passive, 2 active in Memory.
	Flag   uint32
	Memory uint32
	// Expr is the offset expression of an active segment, its final end
	// (0x0B) included. Offset is its value when Const, that is when Expr
	// is a lone i32.const.
	Expr   []byte
	Const  bool
	Offset uint32
	Init   []byte
}

// Active reports whether s is copied into a memory at instantiation.
func (s *Segment) Active() bool { return s.Flag != 1 }

// fixed reports whether s is an active segment of memory 0 at a constant
// address: one whose place in the initial memory image is known.
func (s *Segment) fixed() bool { return s.Active() && s.Memory == 0 && s.Const }

// end is one past the segment's last byte.
func (s *Segment) end() uint64 { return uint64(s.Offset) + uint64(len(s.Init)) }

// Segments returns the module's data segments (the module's own slice).
func (m *Module) Segments() []Segment { return m.segs }

// FormatError is a malformed module: where, in bytes from the start of the
// file, and what is wrong there.
type FormatError struct {
	Offset int
	Msg    string
}

func (e *FormatError) Error() string { return fmt.Sprintf("wasm: at byte %d: %s", e.Offset, e.Msg) }

// reader reads the binary format's primitive values, remembering where it
// is in the file for error messages.
type reader struct {
	b    []byte
	pos  int // into b
	base int // b[0]'s offset in the file
}

func (r *reader) fail(format string, args ...any) error {
	return &FormatError{Offset: r.base + r.pos, Msg: fmt.Sprintf(format, args...)}
}

func (r *reader) done() bool { return r.pos >= len(r.b) }

func (r *reader) byte(what string) (byte, error) {
	if r.pos >= len(r.b) {
		return 0, r.fail("unexpected end of input reading %s", what)
	}
	c := r.b[r.pos]
	r.pos++
	return c, nil
}

func (r *reader) bytes(n uint64, what string) ([]byte, error) {
	if n > uint64(len(r.b)-r.pos) {
		return nil, r.fail("%s of %d bytes runs past the end (%d bytes left)", what, n, len(r.b)-r.pos)
	}
	s := r.b[r.pos : r.pos+int(n)]
	r.pos += int(n)
	return s, nil
}

// u32 reads an unsigned LEB128 of at most 32 bits.
func (r *reader) u32(what string) (uint32, error) {
	start := r.pos
	var v uint64
	for i := 0; ; i++ {
		if i == 5 {
			r.pos = start
			return 0, r.fail("%s: LEB128 longer than 5 bytes", what)
		}
		c, err := r.byte(what)
		if err != nil {
			return 0, err
		}
		v |= uint64(c&0x7f) << (7 * i)
		if c < 0x80 {
			break
		}
	}
	if v > 0xffffffff {
		r.pos = start
		return 0, r.fail("%s: %d does not fit in 32 bits", what, v)
	}
	return uint32(v), nil
}

// sleb reads a signed LEB128 of at most bits bits.
func (r *reader) sleb(bits int, what string) (int64, error) {
	start := r.pos
	maxLen := (bits + 6) / 7
	var v int64
	shift := 0
	for i := 0; ; i++ {
		if i == maxLen {
			r.pos = start
			return 0, r.fail("%s: signed LEB128 longer than %d bytes", what, maxLen)
		}
		c, err := r.byte(what)
		if err != nil {
			return 0, err
		}
		v |= int64(c&0x7f) << shift
		shift += 7
		if c < 0x80 {
			if shift < 64 && c&0x40 != 0 {
				v |= -1 << shift
			}
			break
		}
	}
	if bits < 64 && (v < -(1<<(bits-1)) || v >= 1<<(bits-1)) {
		r.pos = start
		return 0, r.fail("%s: %d does not fit in %d bits", what, v, bits)
	}
	return v, nil
}

// Parse splits a WebAssembly binary into sections and decodes its data
// section. It checks what it needs to rewrite that section safely: the
// header, every section's size, the data section's segments and the
// DataCount section's agreement with them. It does not validate the
// rest of the module. The Module refers to b; b must not change while the
// Module is in use.
func Parse(b []byte) (*Module, error) {
	if len(b) < len(header) || !bytes.Equal(b[:4], header[:4]) {
		return nil, &FormatError{0, `not a WebAssembly module (no "\0asm" magic)`}
	}
	if !bytes.Equal(b[4:8], header[4:]) {
		return nil, &FormatError{4, fmt.Sprintf("unsupported version % x (want 01 00 00 00)", b[4:8])}
	}
	m := &Module{data: -1}
	r := &reader{b: b, pos: len(header)}
	dataCount, dataCountAt := -1, 0
	for !r.done() {
		at := r.pos
		id, _ := r.byte("section id")
		size, err := r.u32(fmt.Sprintf("size of section %d", id))
		if err != nil {
			return nil, err
		}
		body, err := r.bytes(uint64(size), fmt.Sprintf("section %d", id))
		if err != nil {
			return nil, err
		}
		switch id {
		case secData:
			if m.data >= 0 {
				return nil, &FormatError{at, "a second data section"}
			}
			m.data = len(m.sections)
			if m.segs, err = parseData(&reader{b: body, base: r.pos - len(body)}); err != nil {
				return nil, err
			}
		case secDataCount:
			if dataCount >= 0 {
				return nil, &FormatError{at, "a second DataCount section"}
			}
			br := &reader{b: body, base: r.pos - len(body)}
			n, err := br.u32("DataCount")
			if err != nil {
				return nil, err
			}
			if !br.done() {
				return nil, br.fail("%d bytes after the DataCount section's count", len(body)-br.pos)
			}
			dataCount, dataCountAt = int(n), at
		}
		m.sections = append(m.sections, section{id: id, body: body, at: r.pos - len(body)})
	}
	if dataCount >= 0 && dataCount != len(m.segs) {
		return nil, &FormatError{dataCountAt, fmt.Sprintf("DataCount section says %d data segments, the data section has %d", dataCount, len(m.segs))}
	}
	var err error
	if m.memImported, err = m.importsMemory(); err != nil {
		return nil, err
	}
	return m, nil
}

func parseData(r *reader) ([]Segment, error) {
	n, err := r.u32("data segment count")
	if err != nil {
		return nil, err
	}
	// Each segment takes at least 3 bytes (flag, empty expression or
	// memory, length); a count beyond that is a lie, not an allocation.
	if uint64(n)*3 > uint64(len(r.b)-r.pos) {
		return nil, r.fail("data section claims %d segments in %d bytes", n, len(r.b)-r.pos)
	}
	segs := make([]Segment, n)
	for i := range segs {
		s := &segs[i]
		what := fmt.Sprintf("data segment %d", i)
		if s.Flag, err = r.u32(what + " flag"); err != nil {
			return nil, err
		}
		switch s.Flag {
		case 0:
		case 1:
		case 2:
			if s.Memory, err = r.u32(what + " memory index"); err != nil {
				return nil, err
			}
		default:
			r.pos--
			return nil, r.fail("%s: unknown flag %d (want 0, 1 or 2)", what, s.Flag)
		}
		if s.Active() {
			if s.Expr, s.Const, s.Offset, err = offsetExpr(r, what); err != nil {
				return nil, err
			}
		}
		size, err := r.u32(what + " size")
		if err != nil {
			return nil, err
		}
		if s.Init, err = r.bytes(uint64(size), what); err != nil {
			return nil, err
		}
	}
	if !r.done() {
		return nil, r.fail("%d bytes after the last data segment", len(r.b)-r.pos)
	}
	return segs, nil
}

// offsetExpr reads an active segment's offset expression: constant
// instructions up to their end. Const is true when it is a lone i32.const.
func offsetExpr(r *reader, what string) (expr []byte, isConst bool, offset uint32, err error) {
	start := r.pos
	n := 0
	for {
		op, err := r.byte(what + " offset expression")
		if err != nil {
			return nil, false, 0, err
		}
		if op == 0x0b { // end
			break
		}
		n++
		switch op {
		case 0x41: // i32.const
			v, err := r.sleb(32, what+" offset")
			if err != nil {
				return nil, false, 0, err
			}
			offset = uint32(int32(v))
		case 0x42: // i64.const (memory64)
			if _, err := r.sleb(64, what+" offset"); err != nil {
				return nil, false, 0, err
			}
			n++ // not an i32 address
		case 0x23: // global.get
			if _, err := r.u32(what + " global index"); err != nil {
				return nil, false, 0, err
			}
			n++
		case 0x6a, 0x6b, 0x6c, 0x7c, 0x7d, 0x7e: // i32/i64 add, sub, mul (extended constant expressions)
			n++
		default:
			r.pos--
			return nil, false, 0, r.fail("%s: instruction 0x%02x is not allowed in an offset expression", what, op)
		}
	}
	expr = r.b[start:r.pos]
	return expr, n == 1 && expr[0] == 0x41, offset, nil
}

// Encode writes the module back: every section as it was read, but for
// the data section, encoded from the module's segments, and the DataCount
// section, which is made to agree with them.
func (m *Module) Encode() []byte {
	var out bytes.Buffer
	out.Write(header)
	for i, s := range m.sections {
		body := s.body
		switch {
		case i == m.data:
			body = encodeData(m.segs)
		case s.id == secDataCount:
			body = appendU32(nil, uint32(len(m.segs)))
		}
		out.WriteByte(s.id)
		out.Write(appendU32(nil, uint32(len(body))))
		out.Write(body)
	}
	return out.Bytes()
}

func encodeData(segs []Segment) []byte {
	n := 5
	for _, s := range segs {
		n += 16 + len(s.Expr) + len(s.Init)
	}
	b := make([]byte, 0, n)
	b = appendU32(b, uint32(len(segs)))
	for _, s := range segs {
		b = appendU32(b, s.Flag)
		if s.Flag == 2 {
			b = appendU32(b, s.Memory)
		}
		if s.Active() {
			b = append(b, s.Expr...)
		}
		b = appendU32(b, uint32(len(s.Init)))
		b = append(b, s.Init...)
	}
	return b
}

func appendU32(b []byte, v uint32) []byte {
	for v >= 0x80 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}

func appendS32(b []byte, v int32) []byte {
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if (v == 0 && c&0x40 == 0) || (v == -1 && c&0x40 != 0) {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}

// constExpr is the offset expression i32.const off; end.
func constExpr(off uint32) []byte {
	return append(appendS32([]byte{0x41}, int32(off)), 0x0b)
}

// importsMemory reports whether the module imports a memory, which then
// is memory 0 (imports come first in the index space). An imported memory
// may hold data before the module's segments are copied in, so filling a
// gap with zeros could overwrite it.
func (m *Module) importsMemory() (bool, error) {
	for _, s := range m.sections {
		if s.id != secImport {
			continue
		}
		r := &reader{b: s.body, base: s.at}
		n, err := r.u32("import count")
		if err != nil {
			return false, err
		}
		for i := uint32(0); i < n; i++ {
			what := fmt.Sprintf("import %d", i)
			for _, name := range []string{" module name", " field name"} {
				l, err := r.u32(what + name + " length")
				if err != nil {
					return false, err
				}
				if _, err := r.bytes(uint64(l), what+name); err != nil {
					return false, err
				}
			}
			kind, err := r.byte(what + " kind")
			if err != nil {
				return false, err
			}
			switch kind {
			case 0x00: // function: type index
				_, err = r.u32(what + " type index")
			case 0x01: // table: reference type, limits
				if _, err = r.byte(what + " reference type"); err == nil {
					err = limits(r, what)
				}
			case 0x02: // memory
				return true, nil
			case 0x03: // global: value type, mutability
				if _, err = r.byte(what + " value type"); err == nil {
					_, err = r.byte(what + " mutability")
				}
			case 0x04: // tag: attribute, type index
				if _, err = r.byte(what + " tag attribute"); err == nil {
					_, err = r.u32(what + " type index")
				}
			default:
				r.pos--
				return false, r.fail("%s: unknown import kind 0x%02x", what, kind)
			}
			if err != nil {
				return false, err
			}
		}
		if !r.done() {
			return false, r.fail("%d bytes after the last import", len(r.b)-r.pos)
		}
	}
	return false, nil
}

// limits skips a table's limits: a flag, the minimum and, when the flag
// says so, the maximum (64-bit for a table64).
func limits(r *reader, what string) error {
	flag, err := r.byte(what + " limits")
	if err != nil {
		return err
	}
	n := 1 + int(flag&1)
	for range n {
		if flag&4 != 0 {
			_, err = r.sleb(64, what+" limit") // read as a LEB128 of up to 10 bytes
		} else {
			_, err = r.u32(what + " limit")
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// hasSection reports whether the module has a section with the given id.
func (m *Module) hasSection(id byte) bool {
	for _, s := range m.sections {
		if s.id == id {
			return true
		}
	}
	return false
}

// mayUseSegmentIndices reports whether the code section might contain
// memory.init or data.drop (0xFC 8, 0xFC 9), the only instructions that
// name a data segment by index. It scans bytes, not instructions, so it
// may answer yes for an immediate that happens to look like one; it never
// answers no wrongly.
func (m *Module) mayUseSegmentIndices() bool {
	for _, s := range m.sections {
		if s.id != secCode {
			continue
		}
		for i := 0; i+1 < len(s.body); i++ {
			if s.body[i] != 0xfc {
				continue
			}
			r := &reader{b: s.body, pos: i + 1}
			if op, err := r.u32("opcode"); err == nil && (op == 8 || op == 9) {
				return true
			}
		}
	}
	return false
}

// An Image is the initial contents of memory 0 that a module's segments
// lay out, stored by 64 KiB page so that data far apart costs nothing.
type Image struct {
	// End is one past the highest address a segment reaches (a
	// zero-length segment included): a memory smaller than that makes
	// instantiation fail.
	End   uint64
	pages map[uint64][]byte
}

const pageSize = 1 << 16

// Image lays out the active segments of memory 0 with constant offsets in
// order (a later segment overwrites an earlier one) on a memory of zeros.
func (m *Module) Image() *Image {
	img := &Image{pages: map[uint64][]byte{}}
	for i := range m.segs {
		s := &m.segs[i]
		if !s.fixed() {
			continue
		}
		img.End = max(img.End, s.end())
		for at, data := uint64(s.Offset), s.Init; len(data) > 0; {
			p := at / pageSize
			page := img.pages[p]
			if page == nil {
				page = make([]byte, pageSize)
				img.pages[p] = page
			}
			n := copy(page[at%pageSize:], data)
			at, data = at+uint64(n), data[n:]
		}
	}
	return img
}

// Diff returns the first address at which two images differ, or -1 when
// they are the same (ends included).
func (img *Image) Diff(other *Image) int64 {
	var zero [pageSize]byte
	first := int64(-1)
	cmpPage := func(p uint64, a, b []byte) {
		if a == nil {
			a = zero[:]
		}
		if b == nil {
			b = zero[:]
		}
		for i := range a {
			if a[i] != b[i] {
				if at := int64(p*pageSize) + int64(i); first < 0 || at < first {
					first = at
				}
				return
			}
		}
	}
	for p, a := range img.pages {
		cmpPage(p, a, other.pages[p])
	}
	for p, b := range other.pages {
		if img.pages[p] == nil {
			cmpPage(p, nil, b)
		}
	}
	if first < 0 && img.End != other.End {
		first = int64(min(img.End, other.End))
	}
	return first
}
