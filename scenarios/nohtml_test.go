package scenarios

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// No scenario or URL text is ever inserted as HTML (issue 9). The page
// (wasm/, GOOS=js only, so it cannot run here) is read as source: every
// write of HTML — SetInnerHTML, Set("innerHTML"/"outerHTML", …),
// Call("insertAdjacentHTML", …) — must be given a string built only from
// string literals and named constants (joined with +, through local
// variables assigned only such strings, or ranging over a fixed list of
// constant words such as HideParts). Anything else — a knob's value, a
// translation, a fragment — must go in as text (textContent, value) or
// as an attribute.

// constLists are package-level string lists outside wasm/ that the page
// may range over when building a template; each is checked below to hold
// only plain words.
var constLists = map[string][]string{"scenarios.HideParts": HideParts}

var plainWord = regexp.MustCompile(`^[a-z0-9_-]+$`)

// htmlSinks are the JS property and method names that parse HTML.
var htmlSinks = map[string]bool{"innerHTML": true, "outerHTML": true, "insertAdjacentHTML": true, "srcdoc": true, "setHTMLUnsafe": true, "write": true, "writeln": true}

func TestNoDataInsertedAsHTML(t *testing.T) {
	for name, list := range constLists {
		for _, w := range list {
			if !plainWord.MatchString(w) {
				t.Errorf("%s holds %q, not a plain word: the page may not build HTML from it", name, w)
			}
		}
	}
	files, _ := filepath.Glob(filepath.Join("..", "wasm", "*.go"))
	if len(files) == 0 {
		t.Fatal("no wasm/*.go sources found")
	}
	fset := token.NewFileSet()
	var parsed []*ast.File
	for _, f := range files {
		file, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		parsed = append(parsed, file)
	}
	bad, sinks := htmlWriteViolations(fset, parsed)
	for _, b := range bad {
		t.Error(b)
	}
	if sinks == 0 {
		t.Error("no HTML writes found in wasm/: has SetInnerHTML been renamed? update this test")
	}
}

// The checker itself: it passes constant templates and refuses data.
func TestHTMLWriteCheckerRefusesData(t *testing.T) {
	const src = `package main
const tpl = "<b>"
func f(e Elem, v js.Value, cfg map[string]string, st State, name string) {
	e.SetInnerHTML("")
	e.SetInnerHTML(tpl + "<i></i>")
	for _, p := range scenarios.HideParts { e.SetInnerHTML("<b>" + p + tpl) }
	var ok string
	ok += tpl
	e.SetInnerHTML(ok)
	e.SetInnerHTML(cfg["x"]) // 1
	h := tpl
	h += st.Title
	e.SetInnerHTML(h) // 2
	v.Set("innerHTML", i18n.T("en", "key")) // 3
	v.Call("insertAdjacentHTML", "beforeend", "<i>"+name) // 4
	for _, p := range st.Hide { e.SetInnerHTML(p) } // 5
	for i := range 3 { e.SetInnerHTML(i) } // 6
	v.Set("outer"+"HTML", "x")
	key := "innerHTML" // 7
	v.Set(key, name)
	_ = v.Get("innerHTML")
}`
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, "x.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	bad, sinks := htmlWriteViolations(fset, []*ast.File{file})
	if sinks != 11 || len(bad) != 7 {
		t.Errorf("%d writes, %d refused, want 11 and 7:\n%s", sinks, len(bad), strings.Join(bad, "\n"))
	}
	for i, b := range bad {
		if want := "x.go:" + strconv.Itoa([]int{10, 13, 14, 15, 16, 17, 19}[i]) + ":"; !strings.HasPrefix(b, want) {
			t.Errorf("refusal %d: %s; want it at %s", i, b, want)
		}
	}
}

// htmlWriteViolations checks every HTML write in files (one package) and
// every mention of an HTML sink's name outside one; it returns the
// refusals and the number of writes.
func htmlWriteViolations(fset *token.FileSet, parsed []*ast.File) (bad []string, sinks int) {
	consts := map[string]bool{} // package-level constants
	for _, file := range parsed {
		for _, d := range file.Decls {
			if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.CONST {
				for _, s := range g.Specs {
					for _, n := range s.(*ast.ValueSpec).Names {
						consts[n.Name] = true
					}
				}
			}
		}
	}
	for _, file := range parsed {
		for _, d := range file.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Body == nil || fn.Name.Name == "SetInnerHTML" { // the wrapper: its callers are checked
				continue
			}
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				arg, what := htmlArg(call)
				if arg == nil {
					return true
				}
				sinks++
				c := &constChecker{fn: fn, consts: consts, seen: map[*ast.Object]bool{}}
				if !c.ok(arg) {
					bad = append(bad, fmt.Sprintf("%s: %s is set from %s, which is not built only from string literals and constants",
						fset.Position(call.Pos()), what, exprText(fset, arg)))
				}
				return true
			})
		}
	}
	// Every mention of an HTML sink's name is one of the writes checked
	// above (or a read, Get("innerHTML")).
	for _, file := range parsed {
		ast.Inspect(file, func(n ast.Node) bool {
			if call, ok := n.(*ast.CallExpr); ok {
				if sel, ok := call.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "Get" {
					return false
				}
				if _, what := htmlArg(call); what != "" {
					return false
				}
			}
			if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
				if s, err := strconv.Unquote(lit.Value); err == nil && htmlSinks[s] {
					bad = append(bad, fmt.Sprintf("%s: %q used outside a checked write", fset.Position(lit.Pos()), s))
				}
			}
			return true
		})
	}
	return bad, sinks
}

// htmlArg returns the HTML a call writes and what it writes to, or nil.
func htmlArg(call *ast.CallExpr) (ast.Expr, string) {
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok {
		return nil, ""
	}
	// str is a property name: a string literal, or literals joined by +.
	var str func(e ast.Expr) string
	str = func(e ast.Expr) string {
		switch e := e.(type) {
		case *ast.BasicLit:
			if e.Kind == token.STRING {
				s, _ := strconv.Unquote(e.Value)
				return s
			}
		case *ast.BinaryExpr:
			if e.Op == token.ADD {
				return str(e.X) + str(e.Y)
			}
		case *ast.ParenExpr:
			return str(e.X)
		}
		return ""
	}
	switch {
	case sel.Sel.Name == "SetInnerHTML" && len(call.Args) == 1:
		return call.Args[0], "innerHTML"
	case sel.Sel.Name == "Set" && len(call.Args) == 2 && htmlSinks[str(call.Args[0])]:
		return call.Args[1], str(call.Args[0])
	case sel.Sel.Name == "Call" && len(call.Args) >= 2 && htmlSinks[str(call.Args[0])]:
		return call.Args[len(call.Args)-1], str(call.Args[0])
	}
	return nil, ""
}

// constChecker decides whether an expression in fn is built only from
// string literals and constants.
type constChecker struct {
	fn     *ast.FuncDecl
	consts map[string]bool
	seen   map[*ast.Object]bool // local variables being checked (cycles)
}

func (c *constChecker) ok(e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.BasicLit:
		return e.Kind == token.STRING
	case *ast.ParenExpr:
		return c.ok(e.X)
	case *ast.BinaryExpr:
		return e.Op == token.ADD && c.ok(e.X) && c.ok(e.Y)
	case *ast.Ident:
		if e.Obj == nil { // not declared in this file: a package-level name
			return c.consts[e.Name]
		}
		if e.Obj.Kind == ast.Con {
			return true
		}
		return e.Obj.Kind == ast.Var && c.localOK(e.Obj)
	}
	return false
}

// localOK: every assignment to the local variable in fn is a constant
// string, or the variable ranges over a constant list. Variables are told
// apart by the parser's scopes (ast.Object).
func (c *constChecker) localOK(obj *ast.Object) bool {
	if c.seen[obj] {
		return true // the other assignments decide
	}
	c.seen[obj] = true
	is := func(e ast.Expr) bool {
		id, ok := e.(*ast.Ident)
		return ok && id.Obj == obj
	}
	assigned, good := false, true
	ast.Inspect(c.fn.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			for i, l := range n.Lhs {
				if is(l) {
					assigned = true
					if len(n.Rhs) != len(n.Lhs) || !c.ok(n.Rhs[i]) {
						good = false
					}
				}
			}
		case *ast.ValueSpec:
			for i, id := range n.Names {
				if id.Obj == obj {
					assigned = true
					// var s string starts as "", a constant.
					if i < len(n.Values) && !c.ok(n.Values[i]) {
						good = false
					}
				}
			}
		case *ast.RangeStmt:
			if n.Value != nil && is(n.Value) {
				assigned = true
				if sel, ok := n.X.(*ast.SelectorExpr); !ok || constLists[exprName(sel.X)+"."+sel.Sel.Name] == nil {
					good = false
				}
			}
			if n.Key != nil && is(n.Key) {
				assigned, good = true, false // an index is a number, not a string
			}
		}
		return true
	})
	return assigned && good
}

func exprName(e ast.Expr) string {
	if id, ok := e.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}

func exprText(fset *token.FileSet, e ast.Expr) string {
	p, q := fset.Position(e.Pos()), fset.Position(e.End())
	src, err := os.ReadFile(p.Filename)
	if err != nil || q.Offset > len(src) {
		return "an expression"
	}
	return string(src[p.Offset:q.Offset])
}

// jsHTMLWrite matches a JavaScript write of HTML and what it assigns.
var jsHTMLWrite = regexp.MustCompile(`(?:\.(innerHTML|outerHTML|srcdoc)\s*\+?=\s*([^;\n]*))|(?:\b(insertAdjacentHTML|setHTMLUnsafe|createContextualFragment|document\.write(?:ln)?)\s*\()`)

// emptyOrConstant is an assignment of a plain string literal (no
// template substitution).
var emptyOrConstant = regexp.MustCompile(`^("[^"\\$]*"|'[^'\\$]*'|` + "`[^`$]*`" + `)\s*$`)

// The site's own scripts (index.html and embed.html's loader, embed.js
// for authors' pages, the examples) write no data as HTML, and the pages
// carry no inline script or event-handler attribute, so the Content
// Security Policy's script-src 'self' holds (site/server).
func TestSiteScriptsInsertNoHTML(t *testing.T) {
	var files []string
	for _, pat := range []string{"*.js", "*.html", "examples/*.js", "examples/*.html", "examples/*/*.js", "examples/*/*.html", "examples/*/*/*.html"} {
		m, _ := filepath.Glob(filepath.Join("..", "site", pat))
		files = append(files, m...)
	}
	if len(files) < 5 {
		t.Fatalf("only %d site files found", len(files))
	}
	inlineScript := regexp.MustCompile(`(?is)<script\b([^>]*)>(.*?)</script>`)
	handlerAttr := regexp.MustCompile(`(?i)<[a-z][^>]*\son[a-z]+\s*=`)
	jsURL := regexp.MustCompile(`(?i)(href|src)\s*=\s*["']?\s*javascript:`)
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		src := string(b)
		if strings.HasSuffix(f, ".js") {
			for _, w := range jsHTMLWrites(src) {
				t.Errorf("%s: %q writes HTML; set textContent or build elements instead", f, w)
			}
			continue
		}
		for _, m := range inlineScript.FindAllStringSubmatch(src, -1) {
			if !strings.Contains(strings.ToLower(m[1]), "src=") || strings.TrimSpace(m[2]) != "" {
				t.Errorf("%s: an inline <script%s>: the Content Security Policy (script-src 'self') blocks it", f, m[1])
			}
		}
		if m := handlerAttr.FindString(src); m != "" {
			t.Errorf("%s: an inline event handler %q: the Content Security Policy blocks it", f, m)
		}
		if m := jsURL.FindString(src); m != "" {
			t.Errorf("%s: a javascript: URL %q", f, m)
		}
	}
}

// jsHTMLWrites are the writes of HTML in a script other than of a plain
// string literal.
func jsHTMLWrites(src string) []string {
	var out []string
	for _, m := range jsHTMLWrite.FindAllStringSubmatch(src, -1) {
		if m[1] != "" && emptyOrConstant.MatchString(strings.TrimSpace(m[2])) {
			continue
		}
		out = append(out, strings.TrimSpace(m[0]))
	}
	return out
}

func TestJSHTMLWritesRefusesData(t *testing.T) {
	for src, n := range map[string]int{
		`el.innerHTML = "";`:                          0,
		`el.innerHTML = '<b></b>';`:                   0,
		"el.innerHTML = `<i></i>`;":                   0,
		`el.innerHTML = name;`:                        1,
		"el.innerHTML += `<b>${title}</b>`;":          1,
		`el.innerHTML = "<b>" + title;`:               1,
		`el.insertAdjacentHTML("beforeend", "<i>");`:  1,
		`frame.srcdoc = html; document.write(x);`:     2,
		`el.textContent = title; el.value = origins;`: 0,
	} {
		if got := jsHTMLWrites(src); len(got) != n {
			t.Errorf("%s: %q, want %d writes refused", src, got, n)
		}
	}
}
