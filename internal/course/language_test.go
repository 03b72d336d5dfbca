package course

import (
	"html"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gpuscope/gpuscope/internal/textcheck"
	"github.com/gpuscope/gpuscope/scenarios"
)

// The real course's pages read as the glossary asks (issue 22): every
// text a reader sees on a built page — the prose of site/course/LANG/*.md,
// the glossary, the course's own words (text.go), the lessons' titles,
// numbers tables and questions from the catalogue, and the attributes a
// screen reader or tooltip shows — in Chinese without English words
// outside the glossary's Latin names, without half-width punctuation
// beside Chinese characters and without a term written another way; in
// English without Chinese. Formulas (<pre>), code and command lines are
// left out, and so is text marked as the other language (the language
// switch, the glossary's other-language terms).
func TestCourseLanguageRules(t *testing.T) {
	src := filepath.Join("..", "..", "site", "course")
	if md, _ := filepath.Glob(filepath.Join(src, "zh", "*.md")); len(md) == 0 {
		t.Skip("site/course has no lesson pages yet")
	}
	dist := t.TempDir()
	stubSite(t, dist, scenarios.All())
	if err := Build(src, dist); err != nil {
		t.Fatalf("Build(site/course): %v", err)
	}
	failures := 0
	for _, lang := range langs {
		pages, _ := filepath.Glob(filepath.Join(dist, "course", lang, "*.html"))
		if len(pages) == 0 {
			t.Fatalf("no %s pages built", lang)
		}
		for _, p := range pages {
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			// A formula is plain text outside the prose's rules, but
			// writes a number's power as the prose does (10³⁸, 2⁻¹⁰).
			for _, f := range formulaRe.FindAllString(string(b), -1) {
				for _, pr := range textcheck.Formula(html.UnescapeString(tagRe.ReplaceAllString(f, ""))) {
					if failures++; failures <= 300 {
						t.Errorf("course/%s/%s formula: %s", lang, filepath.Base(p), pr)
					}
				}
			}
			for _, text := range pageTexts(string(b), htmlLang[lang]) {
				var probs []string
				if lang == "zh" {
					probs = textcheck.Chinese(text)
				} else {
					probs = textcheck.English(text)
				}
				for _, pr := range probs {
					if failures++; failures <= 300 {
						t.Errorf("course/%s/%s: %s", lang, filepath.Base(p), pr)
					}
				}
			}
		}
	}
	// The course's own words (text.go), each in its language; the
	// language switch speaks the other one.
	for _, lang := range langs {
		for key, v := range ui[lang] {
			if strings.HasPrefix(key, "lang.switch") {
				continue
			}
			if lang == "zh" {
				v = strings.NewReplacer("{q}", "词", "{n}", "8", "{title}", "标题").Replace(v)
			} else {
				v = strings.NewReplacer("{q}", "word", "{n}", "8", "{title}", "Title").Replace(v)
			}
			v = placeholderRe.ReplaceAllString(v, "8") // the validation page's counts and percentages
			probs := textcheck.English(v)
			if lang == "zh" {
				probs = textcheck.Chinese(v)
			}
			for _, pr := range probs {
				failures++
				t.Errorf("text.go %s %s: %s", lang, key, pr)
			}
		}
	}
	if failures > 300 {
		t.Errorf("… and %d more", failures-300)
	}
}

var (
	// dropRe are the parts of a page that are not prose: scripts, styles,
	// formulas with their citations (a paper keeps its published title)
	// and command lines. Inline code (codeRe) stands in the prose as a
	// Latin word, spaced like one.
	dropRe    = regexp.MustCompile(`(?s)<script\b.*?</script>|<style\b.*?</style>|<figure class="formula">.*?</figure>|<pre\b.*?</pre>|<tr class="cmd">.*?</tr>`)
	formulaRe = regexp.MustCompile(`(?s)<figure class="formula">.*?</figure>`)
	codeRe    = regexp.MustCompile(`(?s)<code\b.*?</code>`)
	// langRe is an element marked with its own language.
	langRe = func() *regexp.Regexp {
		var alts []string
		for _, tag := range []string{"a", "span", "p", "dt", "dd", "li", "div"} {
			alts = append(alts, `<`+tag+`\b[^>]*\slang="[^"]+"[^>]*>.*?</`+tag+`>`)
		}
		return regexp.MustCompile(`(?s)` + strings.Join(alts, "|"))
	}()
	langAttrRe = regexp.MustCompile(`^<[a-z]+\b[^>]*\slang="([^"]+)"`)
	// readAttrRe are the attributes a reader hears or sees.
	readAttrRe = regexp.MustCompile(`\s(?:title|aria-label|placeholder|alt|data-none|data-count|data-count1|data-hint|data-loading|data-failed|content)="([^"]*)"`)
	blockRe    = regexp.MustCompile(`(?i)</?(?:p|li|ol|ul|td|th|tr|table|thead|tbody|caption|h[1-6]|dt|dd|dl|div|section|header|footer|nav|main|article|aside|figure|figcaption|summary|details|form|button|label|option|select|br|hr|title|head|body|html|meta|link|iframe|img|input|textarea|blockquote)\b[^>]*>`)
	tagRe      = regexp.MustCompile(`<[^>]*>`)
	// placeholderRe is a {name} of a course string.
	placeholderRe = regexp.MustCompile(`\{[a-z0-9]+\}`)
	labelRe       = regexp.MustCompile(`</span>\s+`)
)

// pageTexts are the texts of a built page in its language lang (BCP 47),
// one per block.
func pageTexts(page, lang string) []string {
	var out []string
	body := dropRe.ReplaceAllString(page, "\n")
	body = codeRe.ReplaceAllString(body, "code")
	body = strings.ReplaceAll(body, "</a><a", "</a>\n<a")
	body = langRe.ReplaceAllStringFunc(body, func(el string) string {
		if m := langAttrRe.FindStringSubmatch(el); m != nil && m[1] != lang {
			return " "
		}
		return el
	})
	for _, m := range readAttrRe.FindAllStringSubmatch(body, -1) {
		if v := html.UnescapeString(m[1]); strings.TrimSpace(v) != "" && !strings.Contains(v, "width=") && !strings.Contains(v, "default-src") && v != "light dark" {
			out = append(out, v)
		}
	}
	body = labelRe.ReplaceAllString(body, "\n") // a label shown on its own (pager, refs, a question's step)
	body = blockRe.ReplaceAllString(body, "\n")
	body = tagRe.ReplaceAllString(body, "")
	for _, line := range strings.Split(html.UnescapeString(body), "\n") {
		if line = strings.TrimSpace(line); line != "" {
			out = append(out, line)
		}
	}
	return out
}
