package main

import (
	"cmp"
	"fmt"
	"slices"
)

// DefaultMaxGap is the longest run of zeros Merge writes out to join two
// segments (and the shortest it cuts out of one). A segment header costs
// 5–12 bytes (flag, i32.const offset, end, size) that compress badly,
// while a run of zeros compresses to almost nothing, so joining pays long
// after the raw size stops shrinking. Measured on main.wasm (gzip -9 of
// 14,278,455 bytes in 100,000 segments: 3,495,662): a gap of 24 gives
// 3,321,113 bytes, 64 gives 3,317,265, 256 gives 3,314,575 (16 segments)
// and 1,024 gives 3,315,397.
const DefaultMaxGap = 256

// MergeResult says what Merge did.
type MergeResult struct {
	Before, After int // data segments
	// Skipped is why nothing was merged, or "".
	Skipped string
}

// Merge joins the active data segments of memory 0 at constant offsets
// whose gaps are at most maxGap bytes, filling each gap with zeros, so
// that the module has fewer segments and lays out exactly the same
// initial memory.
//
// Segments are joined in address order, whatever their order in the
// module: that is safe because they must not overlap (if two do, Merge
// does nothing). Merging renumbers segments, which only memory.init and
// data.drop can observe; they need a DataCount section, so when the
// module has one and its code might contain them, Merge does nothing.
// Passive segments, segments of other memories and those at computed
// offsets stay as they are; when an active segment of memory 0 has a
// computed offset, the layout is not known and Merge does nothing.
// A merged segment is written where the first of its members was.
func (m *Module) Merge(maxGap uint32) MergeResult {
	res := MergeResult{Before: len(m.segs), After: len(m.segs)}
	if m.memImported {
		res.Skipped = "memory 0 is imported, so the gaps between segments may not be zeros"
		return res
	}
	if m.hasSection(secDataCount) && m.mayUseSegmentIndices() {
		res.Skipped = "the code may use memory.init or data.drop, which name segments by index"
		return res
	}
	var fixed []int // indices into m.segs
	for i := range m.segs {
		s := &m.segs[i]
		switch {
		case s.fixed():
			fixed = append(fixed, i)
		case s.Active() && s.Memory == 0:
			res.Skipped = fmt.Sprintf("data segment %d of memory 0 has a computed offset", i)
			return res
		}
	}
	order := slices.Clone(fixed)
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(m.segs[a].Offset, m.segs[b].Offset) })
	var hi uint64 // end of the data so far, in address order
	last := -1
	for _, i := range order {
		s := &m.segs[i]
		if len(s.Init) == 0 {
			continue
		}
		if last >= 0 && uint64(s.Offset) < hi {
			res.Skipped = fmt.Sprintf("data segments %d and %d overlap", last, i)
			return res
		}
		hi, last = s.end(), i
	}

	// Groups of segments to join, in address order.
	type group struct {
		first      int // smallest index of a member in m.segs
		start, end uint64
		members    []int
	}
	var groups []group
	for _, i := range order {
		s := &m.segs[i]
		if n := len(groups); n > 0 && uint64(s.Offset) <= groups[n-1].end+uint64(maxGap) {
			g := &groups[n-1]
			g.first = min(g.first, i)
			g.end = max(g.end, s.end())
			g.members = append(g.members, i)
			continue
		}
		groups = append(groups, group{first: i, start: uint64(s.Offset), end: s.end(), members: []int{i}})
	}
	byFirst := make(map[int]*group, len(groups))
	for i := range groups {
		byFirst[groups[i].first] = &groups[i]
	}

	isFixed := make([]bool, len(m.segs))
	for _, i := range fixed {
		isFixed[i] = true
	}
	out := make([]Segment, 0, len(m.segs)-len(fixed)+len(groups))
	for i := range m.segs {
		if !isFixed[i] {
			out = append(out, m.segs[i])
			continue
		}
		g := byFirst[i]
		if g == nil {
			continue // written with its group
		}
		init := m.segs[i].Init
		if len(g.members) > 1 {
			init = make([]byte, g.end-g.start)
			for _, j := range g.members {
				s := &m.segs[j]
				copy(init[uint64(s.Offset)-g.start:], s.Init)
			}
		}
		out = appendPieces(out, uint32(g.start), init, maxGap)
	}
	if len(out) > len(m.segs) {
		// Cutting long runs of zeros out of segments that were not
		// joined can add segments; engines cap their number (100,000 in
		// V8), so never return more than came in.
		res.Skipped = fmt.Sprintf("merging would make %d segments out of %d", len(out), len(m.segs))
		return res
	}
	m.segs = out
	res.After = len(out)
	return res
}

// appendPieces appends data, to be placed at off, as segments: one, or
// several where it holds runs of more than maxGap zeros between other
// bytes (memory starts as zeros, so they need not be written). Zeros at
// either end are kept: the segment still spans what its members spanned,
// so instantiation fails for exactly the modules whose segments do not
// fit in memory.
func appendPieces(segs []Segment, off uint32, data []byte, maxGap uint32) []Segment {
	start := 0 // of the current piece
	for i := 0; i < len(data); {
		if data[i] != 0 {
			i++
			continue
		}
		j := i
		for j < len(data) && data[j] == 0 {
			j++
		}
		if i > start && j < len(data) && uint64(j-i) > uint64(maxGap) {
			segs = append(segs, piece(off, start, data[start:i]))
			start = j
		}
		i = j
	}
	return append(segs, piece(off, start, data[start:]))
}

func piece(off uint32, at int, data []byte) Segment {
	o := off + uint32(at)
	return Segment{Flag: 0, Expr: constExpr(o), Const: true, Offset: o, Init: data}
}
