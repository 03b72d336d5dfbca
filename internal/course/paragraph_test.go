package course

import (
	"html"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/gpuscope/gpuscope/scenarios"
)

// maxParagraph is the longest paragraph or list item, in characters, a
// built course page may print in each language (issue 40: the zooms ran
// to 600 Chinese characters and 19 numbers a paragraph, a Europeanised
// block a Chinese editor would not sign). 300 Chinese characters are about
// five lines of a page; the English limit is the same reading length.
var maxParagraph = map[string]int{"zh": 300, "en": 650}

// paraRe is a paragraph or a list item of a built page, and paraTagRe
// the tags inside it. tableRe is a table: its cells are a table's, read
// across a row, not prose (the validation page's notes on open rows,
// the published sources' English, are paragraphs in a cell).
var (
	paraRe    = regexp.MustCompile(`(?s)<(p|li)\b[^>]*>(.*?)</(?:p|li)>`)
	paraTagRe = regexp.MustCompile(`<[^>]*>`)
	tableRe   = regexp.MustCompile(`(?s)<table\b.*?</table>`)
)

// paragraphs are the texts of page's paragraphs and list items, each with
// its tags dropped and its spaces collapsed. A list item holding a
// paragraph counts once, as the paragraph.
func paragraphs(page string) []string {
	page = dropRe.ReplaceAllString(page, "\n")
	page = tableRe.ReplaceAllString(page, "\n")
	var out []string
	for _, m := range paraRe.FindAllStringSubmatch(page, -1) {
		text := html.UnescapeString(paraTagRe.ReplaceAllString(m[2], ""))
		if text = strings.Join(strings.Fields(text), " "); text != "" {
			out = append(out, text)
		}
	}
	return out
}

// No paragraph or list item of a built course page — lesson prose,
// teacher notes, the home page, the glossary — is longer than
// maxParagraph in its language: a long step is split where the step or
// the question changes, or into a list.
func TestCourseParagraphs(t *testing.T) {
	src := filepath.Join("..", "..", "site", "course")
	if md, _ := filepath.Glob(filepath.Join(src, "zh", "*.md")); len(md) == 0 {
		t.Skip("site/course has no lesson pages yet")
	}
	dist := t.TempDir()
	stubSite(t, dist, scenarios.All())
	if err := Build(src, dist); err != nil {
		t.Fatalf("Build(site/course): %v", err)
	}
	for _, lang := range langs {
		pages, _ := filepath.Glob(filepath.Join(dist, "course", lang, "*.html"))
		if len(pages) == 0 {
			t.Fatalf("no %s pages built", lang)
		}
		seen := 0
		for _, p := range pages {
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			for _, text := range paragraphs(string(b)) {
				seen++
				if n := utf8.RuneCountInString(text); n > maxParagraph[lang] {
					t.Errorf("course/%s/%s: a paragraph of %d characters (at most %d): split it where the step or the question changes: %.60s…",
						lang, filepath.Base(p), n, maxParagraph[lang], text)
				}
			}
		}
		if seen < 100 {
			t.Errorf("course/%s: only %d paragraphs found; the pattern no longer sees the pages' prose", lang, seen)
		}
	}
}
