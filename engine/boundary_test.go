// Package engine_test checks the one-way imports of DESIGN.md: the engine
// knows nothing of screens or browsers.
package engine_test

import (
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"testing"
)

func TestImportBoundaries(t *testing.T) {
	if runtime.GOOS == "js" {
		t.Skip("needs the go command")
	}
	forbidden := []string{"github.com/hajimehoshi/ebiten", "syscall/js", "honnef.co/go/js"}
	for _, pkgs := range [][]string{
		{"./..."},            // engine/...
		{"../scenarios/..."}, // scenarios → engine only
		{"../render"},        // the builder; render/paint is the painter
		{"../cmd/gpuscope"},  // the CLI runs without a screen
	} {
		args := append([]string{"list", "-deps"}, pkgs...)
		out, err := exec.Command("go", args...).CombinedOutput()
		if err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		for _, dep := range strings.Fields(string(out)) {
			for _, f := range forbidden {
				if strings.HasPrefix(dep, f) {
					t.Errorf("%v depends on %s", pkgs, dep)
				}
			}
		}
	}
}

// The browser build leaves encoding/json out (issue 16: it alone is
// ≈ 95 kB of main.wasm's gzip); engine/tinyjson reads and writes the
// page's JSON instead.
func TestWasmWithoutEncodingJSON(t *testing.T) {
	if runtime.GOOS == "js" {
		t.Skip("needs the go command")
	}
	for _, tags := range []string{"", "i18nfetch"} {
		cmd := exec.Command("go", "list", "-deps", "-tags", tags, "../wasm")
		cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("go list -deps ../wasm: %v\n%s", err, out)
		}
		if slices.Contains(strings.Fields(string(out)), "encoding/json") {
			t.Errorf("the wasm build (tags %q) depends on encoding/json", tags)
		}
	}
}
