// Package engine_test checks the one-way imports of DESIGN.md: the engine
// knows nothing of screens or browsers.
package engine_test

import (
	"os/exec"
	"runtime"
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
