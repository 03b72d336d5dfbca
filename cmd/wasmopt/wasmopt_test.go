package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// A hand-made module: sections of (id, body).
type testSection struct {
	id   byte
	body []byte
}

func module(secs ...testSection) []byte {
	b := append([]byte(nil), header...)
	for _, s := range secs {
		b = append(b, s.id)
		b = appendU32(b, uint32(len(s.body)))
		b = append(b, s.body...)
	}
	return b
}

// seg is a data segment for dataSection: active in memory 0 at off unless
// passive or mem says otherwise; expr, when set, replaces i32.const off.
type seg struct {
	off     uint32
	init    string
	passive bool
	flag2   bool   // encode with flag 2 and an explicit memory index
	mem     uint32 // with flag2
	expr    []byte
}

func dataSection(segs ...seg) testSection {
	b := appendU32(nil, uint32(len(segs)))
	for _, s := range segs {
		switch {
		case s.passive:
			b = append(b, 1)
		case s.flag2:
			b = append(b, 2)
			b = appendU32(b, s.mem)
		default:
			b = append(b, 0)
		}
		if !s.passive {
			if s.expr != nil {
				b = append(b, s.expr...)
			} else {
				b = append(b, constExpr(s.off)...)
			}
		}
		b = appendU32(b, uint32(len(s.init)))
		b = append(b, s.init...)
	}
	return testSection{secData, b}
}

func dataCount(n uint32) testSection { return testSection{secDataCount, appendU32(nil, n)} }

// memorySection defines one memory of a page.
var memorySection = testSection{5, []byte{1, 0, 1}}

func zeros(n int) string { return strings.Repeat("\x00", n) }

// checkSame fails unless merged lays out the same memory image as orig and
// keeps its passive and unplaced segments, in order.
func checkSame(t *testing.T, orig, merged []byte) {
	t.Helper()
	a, err := Parse(orig)
	if err != nil {
		t.Fatalf("Parse(original): %v", err)
	}
	b, err := Parse(merged)
	if err != nil {
		t.Fatalf("Parse(merged): %v", err)
	}
	if at := a.Image().Diff(b.Image()); at >= 0 {
		t.Fatalf("memory images differ from byte %d", at)
	}
	if !segmentsEqual(unplaced(a), unplaced(b)) {
		t.Fatalf("passive or unplaced segments changed:\n%+v\n%+v", unplaced(a), unplaced(b))
	}
}

func TestMergeHandMade(t *testing.T) {
	tests := []struct {
		name    string
		mod     []byte
		gap     uint32
		want    int    // segments after
		skipped string // part of the reason nothing was merged
	}{
		{"empty data section", module(memorySection, dataSection()), 256, 0, ""},
		{"no data section", module(memorySection), 256, 0, ""},
		{"small gap joined", module(memorySection, dataSection(seg{off: 0, init: "ab"}, seg{off: 10, init: "cd"})), 8, 1, ""},
		{"large gap kept", module(memorySection, dataSection(seg{off: 0, init: "ab"}, seg{off: 11, init: "cd"})), 8, 2, ""},
		{"touching edges", module(memorySection, dataSection(seg{off: 4, init: "ab"}, seg{off: 6, init: "cd"}, seg{off: 8, init: "ef"})), 0, 1, ""},
		{"out of address order", module(memorySection, dataSection(seg{off: 100, init: "late"}, seg{off: 0, init: "early"}, seg{off: 50, init: "mid"})), 64, 1, ""},
		{"zero-length segments", module(memorySection, dataSection(seg{off: 0, init: "ab"}, seg{off: 2}, seg{off: 5}, seg{off: 1000}, seg{off: 6, init: "c"})), 8, 2, ""},
		{"zero-length inside another", module(memorySection, dataSection(seg{off: 0, init: "abcdef"}, seg{off: 3})), 0, 1, ""},
		{"passive left alone", module(memorySection, dataSection(seg{off: 0, init: "ab"}, seg{passive: true, init: "passive\x00\x00"}, seg{off: 4, init: "cd"}, seg{passive: true})), 8, 3, ""},
		{"other memory left alone", module(memorySection, dataSection(seg{off: 0, init: "ab"}, seg{flag2: true, mem: 1, off: 2, init: "xx"}, seg{off: 4, init: "cd"})), 8, 2, ""},
		{"flag 2 memory 0 joined", module(memorySection, dataSection(seg{off: 0, init: "ab"}, seg{flag2: true, mem: 0, off: 2, init: "xx"})), 8, 1, ""},
		{"long zero run cut", module(memorySection, dataSection(seg{off: 0, init: "a" + zeros(300) + "b"}, seg{off: 400, init: "c"})), 256, 2, ""},
		{"zeros at the ends kept", module(memorySection, dataSection(seg{off: 0, init: zeros(300) + "a" + zeros(300)})), 256, 1, ""},
		{"high addresses", module(memorySection, dataSection(seg{off: 0x8000_0000, init: "ab"}, seg{off: 0x8000_0004, init: "cd"}, seg{off: 0xffff_fffe, init: "yz"})), 8, 2, ""},
		{"DataCount kept in step", module(memorySection, dataCount(3), dataSection(seg{off: 0, init: "a"}, seg{off: 1, init: "b"}, seg{off: 2, init: "c"})), 8, 1, ""},
		{"DataCount, code without memory.init", module(memorySection, dataCount(2), testSection{secCode, []byte{1, 3, 0, 0x01, 0x0b}}, dataSection(seg{off: 0, init: "a"}, seg{off: 1, init: "b"})), 8, 1, ""},

		{"overlap", module(memorySection, dataSection(seg{off: 0, init: "abcd"}, seg{off: 2, init: "xy"})), 8, 2, "overlap"},
		{"computed offset", module(memorySection, dataSection(seg{off: 0, init: "ab"}, seg{expr: []byte{0x23, 0, 0x0b}, init: "cd"})), 8, 2, "computed offset"},
		{"extended constant offset", module(memorySection, dataSection(seg{off: 0, init: "ab"}, seg{expr: []byte{0x41, 1, 0x41, 2, 0x6a, 0x0b}, init: "cd"})), 8, 2, "computed offset"},
		{"memory.init in the code", module(memorySection, dataCount(2), testSection{secCode, []byte{1, 7, 0, 0x41, 0, 0xfc, 0x08, 0, 0, 0x0b}}, dataSection(seg{off: 0, init: "a"}, seg{off: 1, init: "b"})), 8, 2, "memory.init"},
		{"imported memory", module(testSection{2, []byte{1, 1, 'e', 1, 'm', 0x02, 0x00, 0x01}}, dataSection(seg{off: 0, init: "a"}, seg{off: 2, init: "b"})), 8, 2, "imported"},
		{"imported function", module(testSection{2, []byte{2, 1, 'e', 1, 'f', 0x00, 0x00, 1, 'e', 1, 't', 0x01, 0x70, 0x01, 1, 2}}, memorySection, dataSection(seg{off: 0, init: "a"}, seg{off: 2, init: "b"})), 8, 1, ""},
		{"cutting would add segments", module(memorySection, dataSection(seg{off: 0, init: "a" + zeros(10) + "b" + zeros(10) + "c"})), 4, 1, "would make 3 segments"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := Parse(tt.mod)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			res := m.Merge(tt.gap)
			if !strings.Contains(res.Skipped, tt.skipped) || (tt.skipped == "") != (res.Skipped == "") {
				t.Errorf("Merge: skipped %q, want %q", res.Skipped, tt.skipped)
			}
			out := m.Encode()
			if res.After != tt.want || len(m.Segments()) != tt.want {
				t.Errorf("Merge: %d segments (result says %d), want %d", len(m.Segments()), res.After, tt.want)
			}
			if res.Skipped != "" && !bytes.Equal(out, tt.mod) {
				t.Errorf("a skipped merge changed the module")
			}
			checkSame(t, tt.mod, out)
			if got, _, err := optimize(tt.mod, tt.gap); err != nil {
				t.Errorf("optimize: %v", err)
			} else if !bytes.Equal(got, out) {
				t.Errorf("optimize wrote a different module from Merge and Encode")
			}
		})
	}
}

// The segments Merge writes, in detail, for a case each way.
func TestMergeSegments(t *testing.T) {
	m, err := Parse(module(memorySection, dataSection(
		seg{off: 20, init: "cd"},
		seg{passive: true, init: "p"},
		seg{off: 10, init: "ab"},
		seg{off: 100, init: "e" + zeros(40) + "f"},
	)))
	if err != nil {
		t.Fatal(err)
	}
	m.Merge(16)
	type want struct {
		flag uint32
		off  uint32
		init string
	}
	wants := []want{
		{0, 10, "ab" + zeros(8) + "cd"}, // where the first member (off 20) was
		{1, 0, "p"},
		{0, 100, "e"},
		{0, 141, "f"},
	}
	segs := m.Segments()
	if len(segs) != len(wants) {
		t.Fatalf("%d segments, want %d: %+v", len(segs), len(wants), segs)
	}
	for i, w := range wants {
		s := segs[i]
		if s.Flag != w.flag || (s.Active() && s.Offset != w.off) || string(s.Init) != w.init {
			t.Errorf("segment %d = flag %d offset %d %q, want flag %d offset %d %q", i, s.Flag, s.Offset, s.Init, w.flag, w.off, w.init)
		}
	}
}

func TestParseErrors(t *testing.T) {
	valid := module(memorySection, dataSection(seg{off: 0, init: "ab"}))
	tests := []struct {
		name string
		in   []byte
		want string
	}{
		{"empty", nil, "not a WebAssembly module"},
		{"no magic", []byte("\x7fELF\x01\x00\x00\x00"), "not a WebAssembly module"},
		{"version 2", []byte("\x00asm\x02\x00\x00\x00"), "unsupported version"},
		{"section size missing", append(module(), 1), "unexpected end of input reading size of section 1"},
		{"section past the end", append(module(), 1, 10, 0), "section 1 of 10 bytes runs past the end"},
		{"LEB128 too long", append(module(), 1, 0x80, 0x80, 0x80, 0x80, 0x80, 0), "LEB128 longer than 5 bytes"},
		{"segment count lies", module(testSection{secData, []byte{0xff, 0xff, 0x03}}), "claims 65535 segments"},
		{"unknown flag", module(testSection{secData, []byte{1, 7, 0x41, 0, 0x0b, 0}}), "data segment 0: unknown flag 7"},
		{"bad offset instruction", module(testSection{secData, []byte{1, 0, 0x20, 0, 0x0b, 0}}), "instruction 0x20 is not allowed in an offset expression"},
		{"offset too large", module(testSection{secData, []byte{1, 0, 0x41, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x0b, 0}}), "does not fit in 32 bits"},
		{"offset expression unterminated", module(testSection{secData, []byte{1, 0, 0x41, 0}}), "unexpected end of input reading data segment 0 offset expression"},
		{"segment truncated", module(testSection{secData, []byte{1, 0, 0x41, 0, 0x0b, 5, 'a', 'b'}}), "data segment 0 of 5 bytes runs past the end"},
		{"trailing bytes", module(testSection{secData, []byte{1, 0, 0x41, 0, 0x0b, 1, 'a', 'z', 'z'}}), "2 bytes after the last data segment"},
		{"two data sections", append(valid, valid[8:]...), "a second data section"},
		{"DataCount disagrees", module(dataCount(2), dataSection(seg{off: 0, init: "ab"})), "DataCount section says 2 data segments, the data section has 1"},
		{"DataCount trailing", module(testSection{secDataCount, []byte{1, 0}}, dataSection(seg{off: 0, init: "ab"})), "after the DataCount section's count"},
		{"two DataCount sections", module(dataCount(1), dataCount(1), dataSection(seg{off: 0, init: "ab"})), "a second DataCount section"},
		{"bad import kind", module(testSection{2, []byte{1, 1, 'e', 1, 'x', 0x09}}), "import 0: unknown import kind 0x09"},
		{"import truncated", module(testSection{2, []byte{1, 5, 'e'}}), "import 0 module name of 5 bytes runs past the end"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := Parse(tt.in)
			if err == nil {
				t.Fatalf("Parse = %v, nil; want an error containing %q", m, tt.want)
			}
			var fe *FormatError
			if !errors.As(err, &fe) {
				t.Errorf("Parse error %T, want *FormatError", err)
			}
			if !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "at byte") {
				t.Errorf("Parse error %q, want it to contain %q and the byte offset", err, tt.want)
			}
		})
	}
}

// FuzzParse: no input makes Parse panic; whatever parses merges into a
// module that parses again and lays out the same memory.
func FuzzParse(f *testing.F) {
	f.Add(module(memorySection, dataSection(seg{off: 0, init: "ab"}, seg{off: 10, init: "cd"}, seg{passive: true, init: "p"})))
	f.Add(module(memorySection, dataCount(2), dataSection(seg{off: 5, init: "a" + zeros(300) + "b"}, seg{off: 0, init: "x"})))
	f.Add(module(testSection{2, []byte{1, 1, 'e', 1, 'm', 0x02, 0x00, 0x01}}, dataSection(seg{off: 0, init: "a"})))
	f.Add(module(dataSection(seg{off: 0, init: "abcd"}, seg{off: 2, init: "xy"}, seg{expr: []byte{0x23, 0, 0x0b}})))
	f.Fuzz(func(t *testing.T, b []byte) {
		if _, err := Parse(b); err != nil {
			return
		}
		for _, gap := range []uint32{0, 3, 256} {
			out, _, err := optimize(b, gap)
			if err != nil {
				t.Fatalf("optimize(gap %d): %v", gap, err)
			}
			checkSame(t, b, out)
		}
	})
}

// The check optimize relies on sees a wrong byte, a byte missing and a
// different end.
func TestImageDiff(t *testing.T) {
	base := module(memorySection, dataSection(seg{off: 10, init: "abc"}, seg{off: 70000, init: "z"}))
	tests := []struct {
		name  string
		other []byte
		want  int64
	}{
		{"same, split differently", module(memorySection, dataSection(seg{off: 70000, init: "z"}, seg{off: 10, init: "ab"}, seg{off: 12, init: "c"})), -1},
		{"zeros written out", module(memorySection, dataSection(seg{off: 0, init: zeros(10) + "abc"}, seg{off: 69999, init: "\x00z"})), -1},
		{"a byte changed", module(memorySection, dataSection(seg{off: 10, init: "abd"}, seg{off: 70000, init: "z"})), 12},
		{"a byte missing", module(memorySection, dataSection(seg{off: 10, init: "abc"})), 70000},
		{"a longer end", module(memorySection, dataSection(seg{off: 10, init: "abc"}, seg{off: 70000, init: "z\x00"})), 70001},
		{"overwritten later", module(memorySection, dataSection(seg{off: 10, init: "abc"}, seg{off: 70000, init: "z"}, seg{off: 11, init: "\x00"})), 11},
	}
	a, err := Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		b, err := Parse(tt.other)
		if err != nil {
			t.Fatal(err)
		}
		if got := a.Image().Diff(b.Image()); got != tt.want {
			t.Errorf("%s: Diff = %d, want %d", tt.name, got, tt.want)
		}
		if got := b.Image().Diff(a.Image()); got != tt.want {
			t.Errorf("%s: Diff the other way = %d, want %d", tt.name, got, tt.want)
		}
	}
}

// run replaces the input file, keeping its mode, and says what it did.
func TestRunInPlace(t *testing.T) {
	in := filepath.Join(t.TempDir(), "m.wasm")
	src := module(memorySection, dataSection(seg{off: 0, init: "ab"}, seg{off: 4, init: "cd"}))
	if err := os.WriteFile(in, src, 0o755); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := run([]string{in}, &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "2 → 1 data segments") {
		t.Errorf("run printed %q, want the segment counts", out.String())
	}
	got, err := os.ReadFile(in)
	if err != nil {
		t.Fatal(err)
	}
	checkSame(t, src, got)
	if fi, _ := os.Stat(in); fi.Mode().Perm() != 0o755 {
		t.Errorf("mode %v, want 0755 kept", fi.Mode().Perm())
	}
	if m, _ := Parse(got); m == nil || len(m.Segments()) != 1 {
		t.Errorf("the file was not merged")
	}
}

func TestRunErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.wasm")
	if err := os.WriteFile(bad, []byte("\x00asm\x01\x00\x00\x00\x0b\x05"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{},
		{"a.wasm", "b.wasm"},
		{"-gap", "99999999", bad},
		{filepath.Join(dir, "missing.wasm")},
		{bad},
	} {
		var out bytes.Buffer
		if err := run(args, &out); err == nil {
			t.Errorf("run(%q) = nil, want an error", args)
		}
	}
	var out bytes.Buffer
	if err := run([]string{bad}, &out); err == nil || !strings.Contains(err.Error(), "bad.wasm: wasm: at byte 10") {
		t.Errorf("run(bad.wasm) = %v, want the file and the byte offset", err)
	}
}

// goWasm builds pkg for GOOS=js GOARCH=wasm (as a test binary when test is
// set) into dir.
func goWasm(t *testing.T, dir, pkg string, test bool) string {
	t.Helper()
	out := filepath.Join(dir, filepath.Base(pkg)+".wasm")
	args := []string{"build", "-trimpath", "-ldflags=-s -w", "-o", out, pkg}
	if test {
		args = []string{"test", "-c", "-o", out, pkg}
	}
	cmd := exec.Command(goTool(), args...)
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, b)
	}
	return out
}

func goTool() string {
	return filepath.Join(runtime.GOROOT(), "bin", "go")
}

// wasmExec returns Go's wrapper that runs a js/wasm binary under Node.js,
// or skips the test when Node.js is missing.
func wasmExec(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node not installed (make test installs it)")
	}
	out, err := exec.Command(goTool(), "env", "GOROOT").Output()
	if err != nil {
		t.Fatal(err)
	}
	root := strings.TrimSpace(string(out))
	for _, dir := range []string{"lib/wasm", "misc/wasm"} {
		if p := filepath.Join(root, dir, "go_js_wasm_exec"); fileExists(p) {
			return p
		}
	}
	t.Skip("go_js_wasm_exec not found under GOROOT")
	return ""
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

func mergeFile(t *testing.T, in string) (string, MergeResult) {
	t.Helper()
	src, err := os.ReadFile(in)
	if err != nil {
		t.Fatal(err)
	}
	out, res, err := optimize(src, DefaultMaxGap)
	if err != nil {
		t.Fatalf("optimize(%s): %v", in, err)
	}
	if res.Skipped != "" {
		t.Fatalf("optimize(%s) skipped: %s", in, res.Skipped)
	}
	if res.After >= res.Before {
		t.Errorf("optimize(%s): %d → %d segments, want fewer", in, res.Before, res.After)
	}
	checkSame(t, src, out)
	merged := strings.TrimSuffix(in, ".wasm") + "-merged.wasm"
	if err := os.WriteFile(merged, out, 0o755); err != nil {
		t.Fatal(err)
	}
	return merged, res
}

// A real Go program, built for js/wasm: merged, it lays out the same
// memory and prints the same output under Node.js.
func TestRealProgram(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a wasm program")
	}
	dir := t.TempDir()
	orig := goWasm(t, dir, "./testdata/hello", false)
	merged, res := mergeFile(t, orig)
	t.Logf("testdata/hello: %d → %d data segments", res.Before, res.After)
	exe := wasmExec(t)
	var outs [2]string
	for i, w := range []string{orig, merged} {
		b, err := exec.Command(exe, w).CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", w, err, b)
		}
		outs[i] = string(b)
	}
	if outs[0] != outs[1] || !strings.Contains(outs[0], "hello ok") {
		t.Errorf("outputs differ or incomplete:\noriginal: %s\nmerged:   %s", outs[0], outs[1])
	}
}

// A package's test binary, built for js/wasm and merged, passes its tests
// under Node.js: engine/collective's include golden trace hashes, so a
// byte of data laid out wrongly shows. It runs those and three tests of
// published and hand-worked figures (tables in the data segments), not
// the package's whole suite, which make test runs under Node.js anyway
// (about 15 s of CPU this test would repeat).
func TestRealTestBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a wasm test binary")
	}
	exe := wasmExec(t)
	dir := t.TempDir()
	pkgDir, err := filepath.Abs("../../engine/collective")
	if err != nil {
		t.Fatal(err)
	}
	merged, _ := mergeFile(t, goWasm(t, dir, "github.com/gpuscope/gpuscope/engine/collective", true))
	cmd := exec.Command(exe, merged, "-test.count=1", "-test.v",
		"-test.run", "^(TestTraceHashesAreStable|TestRingHandWorked|TestPublishedNVLinkBusBandwidth|TestNCCLBusBandwidthAgainstNCCLTests)$")
	cmd.Dir = pkgDir // for its testdata
	b, err := cmd.CombinedOutput()
	if err != nil || strings.Count(string(b), "\n--- PASS: ") != 4 || !strings.Contains(string(b), "--- PASS: TestTraceHashesAreStable") || !strings.Contains(string(b), "\nPASS") {
		t.Fatalf("merged engine/collective test binary under Node.js: %v\n%s", err, b)
	}
}
