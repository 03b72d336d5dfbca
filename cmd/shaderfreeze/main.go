// Command shaderfreeze writes a copy of the Ebiten module whose built-in
// shaders are not made by a template, and a go.mod that builds with it.
//
//	shaderfreeze -o DIR
//
// Ebiten makes the Kage source of its built-in shaders by executing a
// text/template (internal/builtinshader/shader.go). Linking text/template's
// executor links reflect.Value.MethodByName called with a name known only
// at run time, and the Go linker then keeps every exported method of
// every type that can reach an interface, used or not: in main.wasm that
// was 463 kB of the gzip's 3.23 MB (measured 2026-12-02). The template
// has a dozen outcomes (FilterCount × AddressCount × colour matrix or
// not). shaderfreeze runs Ebiten's own file to get each of them, and
// writes DIR/ebiten, the module as go.mod requires it (its examples
// left out) with that file replaced by one whose function returns those
// sources, and DIR/go.mod and DIR/go.sum, this module's with a replace
// directive pointing at the copy: `go build -modfile=DIR/go.mod` builds
// with it. It runs the frozen file the same way and checks that every
// outcome is byte for byte the template's. `make wasm` builds main.wasm
// so; nothing of Ebiten's is committed here (Go does not let a build
// overlay replace a file in the module cache, hence the copy), and an
// Ebiten whose file no longer has the template's shape is refused,
// naming what is missing.
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "shaderfreeze:", err)
		os.Exit(1)
	}
}

func run(args []string, stdout io.Writer) error {
	fl := flag.NewFlagSet("shaderfreeze", flag.ContinueOnError)
	out := fl.String("o", "", "directory for the module copy, go.mod and go.sum")
	goCmd := fl.String("go", "go", "the go command")
	if err := fl.Parse(args); err != nil {
		return err
	}
	if *out == "" || fl.NArg() > 0 {
		return errors.New("usage: shaderfreeze -o DIR")
	}
	info, err := exec.Command(*goCmd, "list", "-f", "{{.Module.Path}} {{.Module.Dir}} {{.Dir}}", builtinShaderPkg).Output()
	if err != nil {
		return fmt.Errorf("go list %s: %v", builtinShaderPkg, err)
	}
	f := strings.Fields(string(info))
	if len(f) != 3 {
		return fmt.Errorf("go list %s: %q", builtinShaderPkg, info)
	}
	modPath, modDir, pkgDir := f[0], f[1], f[2]
	text, err := os.ReadFile(filepath.Join(pkgDir, "shader.go"))
	if err != nil {
		return err
	}
	frozen, n, err := Freeze(text, *goCmd)
	if err != nil {
		return fmt.Errorf("%s: %w", filepath.Join(pkgDir, "shader.go"), err)
	}
	dst, err := filepath.Abs(filepath.Join(*out, "ebiten"))
	if err != nil {
		return err
	}
	rel, err := filepath.Rel(modDir, pkgDir)
	if err != nil {
		return err
	}
	if err := copyModule(modDir, dst, map[string][]byte{filepath.Join(rel, "shader.go"): frozen}); err != nil {
		return err
	}
	mainMod, err := exec.Command(*goCmd, "env", "GOMOD").Output()
	if err != nil || strings.TrimSpace(string(mainMod)) == "" || strings.TrimSpace(string(mainMod)) == os.DevNull {
		return fmt.Errorf("go env GOMOD: not in a module (%v)", err)
	}
	gomod, err := os.ReadFile(strings.TrimSpace(string(mainMod)))
	if err != nil {
		return err
	}
	gosum, err := os.ReadFile(strings.TrimSuffix(strings.TrimSpace(string(mainMod)), ".mod") + ".sum")
	if err != nil {
		return err
	}
	gomod = append(gomod, fmt.Sprintf("\n// Written by cmd/shaderfreeze: Ebiten with its built-in shaders frozen.\nreplace %s => %s\n", modPath, dst)...)
	if err := os.WriteFile(filepath.Join(*out, "go.mod"), gomod, 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(*out, "go.sum"), gosum, 0o644); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "shaderfreeze: %s with its %d built-in shader sources frozen (checked against the template): go build -modfile=%s\n", dst, n, filepath.Join(*out, "go.mod"))
	return nil
}

// copyModule copies the module at src to dst (emptied first), but its
// examples, with the files of replace (by path under src) replaced.
func copyModule(src, dst string, replace map[string][]byte) error {
	if err := os.RemoveAll(dst); err != nil {
		return err
	}
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			if rel == "examples" {
				return filepath.SkipDir
			}
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		b, ok := replace[rel]
		if !ok {
			if b, err = os.ReadFile(p); err != nil {
				return err
			}
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
}

// builtinShaderPkg is the package whose shader.go is frozen.
const builtinShaderPkg = "github.com/hajimehoshi/ebiten/v2/internal/builtinshader"

// shape is what Freeze needs of Ebiten's file: the template variable and
// the function that executes it, with its three parameters (filter,
// address, colour matrix).
type shape struct {
	pkg          string
	tmpl         *ast.GenDecl // var tmpl = template.Must(…)
	fn           *ast.FuncDecl
	filter, addr string // the function's parameter names
	colorM       string
}

func findShape(f *ast.File) (shape, error) {
	s := shape{pkg: f.Name.Name}
	for _, d := range f.Decls {
		if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.VAR && len(g.Specs) == 1 {
			if v, ok := g.Specs[0].(*ast.ValueSpec); ok && len(v.Names) == 1 && v.Names[0].Name == "tmpl" {
				s.tmpl = g
			}
		}
	}
	if s.tmpl == nil {
		return s, errors.New("no `var tmpl = template.Must(…)`: Ebiten's built-in shaders are no longer a template (drop the overlay)")
	}
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Recv != nil || fd.Body == nil || !uses(fd.Body, "tmpl") {
			continue
		}
		if s.fn != nil {
			return s, fmt.Errorf("two functions execute tmpl: %s and %s", s.fn.Name.Name, fd.Name.Name)
		}
		s.fn = fd
	}
	if s.fn == nil {
		return s, errors.New("no function executes tmpl")
	}
	var names, types []string
	for _, p := range s.fn.Type.Params.List {
		for _, n := range p.Names {
			names, types = append(names, n.Name), append(types, exprString(p.Type))
		}
	}
	if strings.Join(types, ",") != "Filter,Address,bool" {
		return s, fmt.Errorf("%s takes (%s), not (Filter, Address, bool)", s.fn.Name.Name, strings.Join(types, ", "))
	}
	if r := s.fn.Type.Results; r == nil || len(r.List) != 1 || exprString(r.List[0].Type) != "[]byte" {
		return s, fmt.Errorf("%s does not return []byte", s.fn.Name.Name)
	}
	s.filter, s.addr, s.colorM = names[0], names[1], names[2]
	return s, nil
}

// Freeze is Ebiten's shader.go with its template replaced by the
// sources it makes, and how many there are. It runs goCmd twice: once on
// the original file to get the sources, once on the result to check it
// gives the same.
func Freeze(src []byte, goCmd string) ([]byte, int, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "shader.go", src, parser.ParseComments)
	if err != nil {
		return nil, 0, err
	}
	s, err := findShape(f)
	if err != nil {
		return nil, 0, err
	}
	want, err := outcomes(src, s, goCmd)
	if err != nil {
		return nil, 0, fmt.Errorf("running the template: %w", err)
	}

	// The template goes; the function returns the table's entry.
	var decls []ast.Decl
	for _, d := range f.Decls {
		if d != s.tmpl {
			decls = append(decls, d)
		}
	}
	f.Decls = decls
	body := fmt.Sprintf("package p\nfunc _() {\n\tc := 0\n\tif %s {\n\t\tc = 1\n\t}\n\treturn []byte(frozenShaders[%s][%s][c])\n}\n", s.colorM, s.filter, s.addr)
	bf, err := parser.ParseFile(token.NewFileSet(), "", body, 0)
	if err != nil {
		return nil, 0, err
	}
	// Comments inside what goes would print where it was.
	oldBody, tmplPos, tmplEnd := s.fn.Body, s.tmpl.Pos(), s.tmpl.End()
	var comments []*ast.CommentGroup
	for _, c := range f.Comments {
		if (c.Pos() >= oldBody.Pos() && c.End() <= oldBody.End()) || (c.Pos() >= tmplPos && c.End() <= tmplEnd) {
			continue
		}
		comments = append(comments, c)
	}
	f.Comments = comments
	s.fn.Body = bf.Decls[0].(*ast.FuncDecl).Body
	dropUnusedImports(f)
	var buf bytes.Buffer
	buf.WriteString("// Code generated by gpuscope's cmd/shaderfreeze from Ebiten's\n// internal/builtinshader/shader.go; DO NOT EDIT.\n// (Ebiten is under the Apache License 2.0, as is the file this is made\n// from; its template is replaced by the sources it makes.)\n\n")
	if err := format.Node(&buf, fset, f); err != nil {
		return nil, 0, err
	}
	buf.WriteString("\n// frozenShaders are the template's sources by filter, address and\n// colour matrix (0 without, 1 with).\nvar frozenShaders = [FilterCount][AddressCount][2]string{\n")
	for fi, byF := range want {
		buf.WriteString("\t{\n")
		for ai, byA := range byF {
			_ = ai
			fmt.Fprintf(&buf, "\t\t{%s, %s},\n", strconv.Quote(byA[0]), strconv.Quote(byA[1]))
		}
		buf.WriteString("\t},\n")
		_ = fi
	}
	buf.WriteString("}\n")
	out, err := format.Source(buf.Bytes())
	if err != nil {
		return nil, 0, fmt.Errorf("the frozen file does not format: %w", err)
	}
	s2, err := findShapeOf(out)
	if err != nil {
		return nil, 0, err
	}
	got, err := outcomes(out, s2, goCmd)
	if err != nil {
		return nil, 0, fmt.Errorf("running the frozen file: %w", err)
	}
	n := 0
	for fi := range want {
		for ai := range want[fi] {
			for c := range want[fi][ai] {
				if fi >= len(got) || ai >= len(got[fi]) || got[fi][ai][c] != want[fi][ai][c] {
					return nil, 0, fmt.Errorf("the frozen source for filter %d, address %d, colour matrix %d differs from the template's", fi, ai, c)
				}
				n++
			}
		}
	}
	return out, n, nil
}

// findShapeOf is the frozen file's function (it no longer has tmpl).
func findShapeOf(src []byte) (shape, error) {
	f, err := parser.ParseFile(token.NewFileSet(), "shader.go", src, 0)
	if err != nil {
		return shape{}, err
	}
	for _, d := range f.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Body != nil && uses(fd.Body, "frozenShaders") {
			return shape{pkg: f.Name.Name, fn: fd}, nil
		}
	}
	return shape{}, errors.New("the frozen file has no function returning frozenShaders")
}

// outcomes runs src's function for every filter, address and colour
// matrix: src copied into a scratch module as package main, beside a main
// that prints each source quoted, a line each.
func outcomes(src []byte, s shape, goCmd string) ([][][2]string, error) {
	dir, err := os.MkdirTemp("", "shaderfreeze")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	f, err := parser.ParseFile(token.NewFileSet(), "shader.go", src, parser.ParseComments)
	if err != nil {
		return nil, err
	}
	main := bytes.Replace(src, []byte("package "+s.pkg), []byte("package main"), 1)
	if f.Name.Name != s.pkg || bytes.Equal(main, src) {
		return nil, errors.New("no package clause")
	}
	gen := fmt.Sprintf(`package main

import (
	"fmt"
	"strconv"
)

func main() {
	for f := Filter(0); f < FilterCount; f++ {
		for a := Address(0); a < AddressCount; a++ {
			fmt.Println(strconv.Quote(string(%[1]s(f, a, false))) + " " + strconv.Quote(string(%[1]s(f, a, true))))
		}
		fmt.Println("-")
	}
}
`, s.fn.Name.Name)
	for name, text := range map[string][]byte{"go.mod": []byte("module shaderfreeze\n\ngo 1.21\n"), "shader.go": main, "gen.go": []byte(gen)} {
		if err := os.WriteFile(filepath.Join(dir, name), text, 0o644); err != nil {
			return nil, err
		}
	}
	cmd := exec.Command(goCmd, "run", ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod", "GOOS=", "GOARCH=")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	printed, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("%v: %s", err, strings.TrimSpace(stderr.String()))
	}
	var res [][][2]string
	cur := [][2]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(printed)), "\n") {
		if line == "-" {
			res, cur = append(res, cur), [][2]string{}
			continue
		}
		var pair [2]string
		rest := line
		for i := range pair {
			q, err := strconv.QuotedPrefix(rest)
			if err != nil {
				return nil, fmt.Errorf("unreadable output %q", line)
			}
			pair[i], _ = strconv.Unquote(q)
			rest = strings.TrimPrefix(rest[len(q):], " ")
		}
		cur = append(cur, pair)
	}
	if len(res) == 0 {
		return nil, errors.New("no sources printed")
	}
	return res, nil
}

// uses reports whether n names ident.
func uses(n ast.Node, ident string) bool {
	found := false
	ast.Inspect(n, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && id.Name == ident {
			found = true
		}
		return !found
	})
	return found
}

// dropUnusedImports removes the imports f no longer names.
func dropUnusedImports(f *ast.File) {
	used := map[string]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok {
			if id, ok := sel.X.(*ast.Ident); ok {
				used[id.Name] = true
			}
		}
		return true
	})
	var keep []*ast.ImportSpec
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.IMPORT {
			continue
		}
		var specs []ast.Spec
		for _, sp := range g.Specs {
			is := sp.(*ast.ImportSpec)
			path, _ := strconv.Unquote(is.Path.Value)
			name := path[strings.LastIndex(path, "/")+1:]
			if is.Name != nil {
				name = is.Name.Name
			}
			if used[name] || name == "_" {
				specs = append(specs, sp)
				keep = append(keep, is)
			}
		}
		g.Specs = specs
	}
	f.Imports = keep
}

func exprString(e ast.Expr) string {
	var b bytes.Buffer
	format.Node(&b, token.NewFileSet(), e)
	return b.String()
}
