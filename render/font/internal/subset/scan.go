package subset

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Extra are runes kept whether or not a source uses them yet: the
// typographic characters labels are likely to need soon.
const Extra = "×÷≈≤≥→←↑↓µ·–—‘’“”…±²³½¼°ΨαβγΔθλπσ∑√∞"

// Absent are runes that appear in the catalogues' prose but that Go
// Regular has no glyph for, so they cannot be in the subset; none of them
// is drawn on the canvas (a test fails for any other rune the canvas
// could draw that the subset lacks). ✓ and ✗, asked for with Extra, are
// missing from Go Regular too.
const Absent = "ᵀ⅓⌈⌉⌘✓✗"

// Sources are the files, relative to the repository root, whose text the
// canvas may draw: the display-list builders' string literals (render/*.go,
// tests excepted) and the catalogues.
var Sources = []string{"render/*.go", "scenarios/i18n/en.txt", "scenarios/i18n/zh.txt"}

// A Use is a rune outside ASCII that a source holds, and the first place
// it does.
type Use struct {
	Rune rune
	At   string // file:line, relative to the root
}

// Scan returns the runes outside ASCII in Sources under root, each with
// where it first appears, sorted by rune.
func Scan(root string) ([]Use, error) {
	first := map[rune]string{}
	note := func(s, at string) {
		for _, r := range s {
			if r >= 0x80 {
				if _, ok := first[r]; !ok {
					first[r] = at
				}
			}
		}
	}
	for _, pattern := range Sources {
		files, err := filepath.Glob(filepath.Join(root, pattern))
		if err != nil {
			return nil, err
		}
		if len(files) == 0 {
			return nil, fmt.Errorf("subset: no files match %s under %s", pattern, root)
		}
		slices.Sort(files)
		for _, file := range files {
			rel, _ := filepath.Rel(root, file)
			rel = filepath.ToSlash(rel)
			if strings.HasSuffix(file, "_test.go") {
				continue
			}
			if strings.HasSuffix(file, ".go") {
				fset := token.NewFileSet()
				f, err := parser.ParseFile(fset, file, nil, 0)
				if err != nil {
					return nil, err
				}
				ast.Inspect(f, func(n ast.Node) bool {
					lit, ok := n.(*ast.BasicLit)
					if !ok || (lit.Kind != token.STRING && lit.Kind != token.CHAR) {
						return true
					}
					s, err := strconv.Unquote(lit.Value)
					if err == nil {
						note(s, fmt.Sprintf("%s:%d", rel, fset.Position(lit.Pos()).Line))
					}
					return true
				})
				continue
			}
			b, err := os.ReadFile(file)
			if err != nil {
				return nil, err
			}
			for i, line := range strings.Split(string(b), "\n") {
				note(line, fmt.Sprintf("%s:%d", rel, i+1))
			}
		}
	}
	uses := make([]Use, 0, len(first))
	for r, at := range first {
		uses = append(uses, Use{r, at})
	}
	slices.SortFunc(uses, func(a, b Use) int { return int(a.Rune - b.Rune) })
	return uses, nil
}

// IsCJK is render/font.IsCJK (a test checks they agree): the runes the
// browser draws, which the subset leaves out.
func IsCJK(r rune) bool {
	return (r >= 0x2e80 && r <= 0x2fdf) || (r >= 0x3000 && r <= 0x303f) ||
		(r >= 0x3400 && r <= 0x9fff) || (r >= 0xff00 && r <= 0xffef)
}

// Runes returns the runes a subset keeps, sorted: printable ASCII, Extra,
// and those of uses outside ASCII that skip (the runes another route
// draws, such as CJK) does not claim and that are not Absent.
func Runes(uses []Use, skip func(rune) bool) []rune {
	var rs []rune
	for r := rune(0x20); r < 0x7f; r++ {
		rs = append(rs, r)
	}
	rs = append(rs, []rune(Extra)...)
	for _, u := range uses {
		if !skip(u.Rune) && !strings.ContainsRune(Absent, u.Rune) {
			rs = append(rs, u.Rune)
		}
	}
	slices.Sort(rs)
	return slices.Compact(rs)
}
