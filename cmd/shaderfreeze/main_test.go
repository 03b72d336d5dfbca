package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A template of the shape Ebiten's has: Freeze runs it, and the frozen
// file returns the same sources without text/template.
const toy = `package builtinshader

import (
	"bytes"
	"text/template"
)

type Filter int

const (
	FilterNearest Filter = iota
	FilterLinear
)

const FilterCount = 2

type Address int

const (
	AddressUnsafe Address = iota
	AddressRepeat
)

const AddressCount = 2

var tmpl = template.Must(template.New("tmpl").Parse(` + "`" + `f{{.Filter}} a{{.Address}}{{if .UseColorM}} m{{end}}` + "`" + `))

// ShaderSource is the source.
func ShaderSource(filter Filter, address Address, useColorM bool) []byte {
	// a comment that goes with the body
	var buf bytes.Buffer
	tmpl.Execute(&buf, struct {
		Filter    Filter
		Address   Address
		UseColorM bool
	}{filter, address, useColorM})
	return buf.Bytes()
}
`

func TestFreezeToy(t *testing.T) {
	out, n, err := Freeze([]byte(toy), "go")
	if err != nil {
		t.Fatal(err)
	}
	if n != 8 {
		t.Errorf("%d sources frozen, want 2 filters × 2 addresses × 2", n)
	}
	s := string(out)
	for _, want := range []string{`"f1 a0 m"`, `"f0 a1"`, "// ShaderSource is the source.", "DO NOT EDIT"} {
		if !strings.Contains(s, want) {
			t.Errorf("frozen file lacks %s:\n%s", want, s)
		}
	}
	for _, gone := range []string{"text/template", "tmpl", "a comment that goes with the body", `"bytes"`} {
		if strings.Contains(s, gone) {
			t.Errorf("frozen file still has %s:\n%s", gone, s)
		}
	}
}

// A file that is not of the template's shape is refused, naming what is
// missing.
func TestFreezeRefuses(t *testing.T) {
	for name, c := range map[string]struct{ src, want string }{
		"no template": {strings.Replace(toy, "var tmpl =", "var other =", 1), "no `var tmpl"},
		"parameters":  {strings.Replace(toy, "useColorM bool)", "useColorM int)", 1), "ShaderSource takes (Filter, Address, int)"},
		"result":      {strings.Replace(toy, "useColorM bool) []byte", "useColorM bool) string", 1), "does not return []byte"},
	} {
		_, _, err := Freeze([]byte(c.src), "go")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error saying %q", name, err, c.want)
		}
	}
}

// The real thing: Ebiten as go.mod requires it, frozen; the browser build
// with the copy links no text/template (main.wasm's size says the rest).
func TestFreezeEbiten(t *testing.T) {
	dir := t.TempDir()
	var stdout bytes.Buffer
	if err := run([]string{"-o", dir}, &stdout); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stdout.String(), "12 built-in shader sources frozen") {
		t.Errorf("output: %s", stdout.String())
	}
	frozen, err := os.ReadFile(filepath.Join(dir, "ebiten", "internal", "builtinshader", "shader.go"))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(frozen, []byte("text/template")) || !bytes.Contains(frozen, []byte("frozenShaders")) {
		t.Error("the copy's shader.go is not frozen")
	}
	if _, err := os.Stat(filepath.Join(dir, "ebiten", "examples")); err == nil {
		t.Error("the copy has Ebiten's examples")
	}
	mod, _ := os.ReadFile(filepath.Join(dir, "go.mod"))
	if !bytes.Contains(mod, []byte("replace github.com/hajimehoshi/ebiten/v2 => "+filepath.Join(dir, "ebiten"))) {
		t.Errorf("go.mod:\n%s", mod)
	}
	cmd := exec.Command("go", "list", "-modfile="+filepath.Join(dir, "go.mod"), "-tags", "i18nfetch", "-deps", "../../wasm")
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	deps, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, deps)
	}
	list := "\n" + string(deps)
	if strings.Contains(list, "\ntext/template\n") || !strings.Contains(list, "\ngithub.com/hajimehoshi/ebiten/v2/internal/builtinshader\n") {
		t.Errorf("the wasm build with the frozen copy: text/template linked, or no builtinshader:\n%s", deps)
	}
}
