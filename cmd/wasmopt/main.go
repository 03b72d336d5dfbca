// Command wasmopt merges the data segments of a WebAssembly module after
// the Go linker has written it.
//
//	wasmopt [-gap N] [-o OUT] IN.wasm
//
// The Go linker starts a new data segment at every run of zeros in the
// program's data, up to 100,000 segments; each costs a header of 5–12
// bytes that compresses badly (≈ 180 KB of main.wasm's gzip). wasmopt
// joins active segments of memory 0 that are at most N bytes apart
// (default 256), writing the gap as zeros, and cuts longer runs of zeros
// out of the segments it forms. It keeps a DataCount section in step,
// checks that the result lays out exactly the initial memory the input
// did, and writes it to OUT (default: IN, replaced atomically). Every
// section but the data and DataCount sections is copied byte for byte.
// `make wasm` runs it on main.wasm.
//
// A malformed module is an error naming the byte offset and what is
// wrong; a module wasmopt cannot merge safely (overlapping segments,
// computed offsets, an imported memory, segments named by index in the
// code) is written back unchanged, with the reason.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "wasmopt:", err)
		os.Exit(1)
	}
}

func run(args []string, stdout io.Writer) error {
	fl := flag.NewFlagSet("wasmopt", flag.ContinueOnError)
	gap := fl.Uint("gap", DefaultMaxGap, "join segments whose gap is at most this many bytes of zeros")
	out := fl.String("o", "", "output file (default: replace the input)")
	if err := fl.Parse(args); err != nil {
		return err
	}
	if fl.NArg() != 1 {
		return fmt.Errorf("want one input file, got %d (usage: wasmopt [-gap N] [-o OUT] IN.wasm)", fl.NArg())
	}
	if *gap > 1<<20 {
		return fmt.Errorf("-gap %d: want 0 to %d", *gap, 1<<20)
	}
	in := fl.Arg(0)
	if *out == "" {
		*out = in
	}
	src, err := os.ReadFile(in)
	if err != nil {
		return err
	}
	merged, res, err := optimize(src, uint32(*gap))
	if err != nil {
		return fmt.Errorf("%s: %w", in, err)
	}
	if res.Skipped != "" {
		fmt.Fprintf(stdout, "wasmopt: %s: not merged: %s\n", in, res.Skipped)
	} else {
		fmt.Fprintf(stdout, "wasmopt: %s: %d → %d data segments, %d → %d bytes\n", in, res.Before, res.After, len(src), len(merged))
	}
	return writeAtomic(*out, merged)
}

// optimize merges src's data segments and checks the result: it parses
// again, and its initial memory, passive segments and other segments must
// be the input's.
func optimize(src []byte, gap uint32) ([]byte, MergeResult, error) {
	m, err := Parse(src)
	if err != nil {
		return nil, MergeResult{}, err
	}
	before := m.Image()
	others := unplaced(m)
	res := m.Merge(gap)
	out := m.Encode()
	check, err := Parse(out)
	if err != nil {
		return nil, res, fmt.Errorf("the merged module does not parse (a bug): %v", err)
	}
	if at := before.Diff(check.Image()); at >= 0 {
		return nil, res, fmt.Errorf("the merged module lays out a different memory image from byte %d (a bug)", at)
	}
	if !segmentsEqual(others, unplaced(check)) {
		return nil, res, fmt.Errorf("the merged module changed a passive or unplaced segment (a bug)")
	}
	return out, res, nil
}

// unplaced returns the segments that are not active in memory 0 at a
// constant offset, in order: what Merge must leave alone.
func unplaced(m *Module) []Segment {
	var segs []Segment
	for _, s := range m.Segments() {
		if !s.fixed() {
			segs = append(segs, s)
		}
	}
	return segs
}

func segmentsEqual(a, b []Segment) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Flag != b[i].Flag || a[i].Memory != b[i].Memory || !bytes.Equal(a[i].Expr, b[i].Expr) || !bytes.Equal(a[i].Init, b[i].Init) {
			return false
		}
	}
	return true
}

// writeAtomic writes data to a temporary file beside name, then renames it
// over name, so that a reader never sees half a module.
func writeAtomic(name string, data []byte) error {
	mode := os.FileMode(0o644)
	if fi, err := os.Stat(name); err == nil {
		mode = fi.Mode().Perm()
	}
	f, err := os.CreateTemp(filepath.Dir(name), ".wasmopt-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp, mode)
	}
	if err == nil {
		err = os.Rename(tmp, name)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}
