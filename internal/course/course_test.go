package course

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/gpuscope/gpuscope/scenarios"
	"github.com/gpuscope/gpuscope/scenarios/i18n"
)

// fixture is a small course of three lessons, one per layer.
const fixture = "testdata/course"

var fixtureIDs = []string{"ring-allreduce", "roofline", "memory-budget"}

func fixtureLessons(t *testing.T) []*scenarios.Scenario {
	t.Helper()
	var out []*scenarios.Scenario
	for _, s := range scenarios.All() {
		if slices.Contains(fixtureIDs, s.ID) {
			out = append(out, s)
		}
	}
	if len(out) != len(fixtureIDs) {
		t.Fatalf("the fixture's lessons %v are not all in the catalogue", fixtureIDs)
	}
	return out
}

// The course's own strings exist in both languages.
func TestUIStrings(t *testing.T) {
	for _, lang := range langs {
		for key := range ui[other(lang)] {
			if _, ok := ui[lang][key]; !ok {
				t.Errorf("ui[%q] lacks %q", lang, key)
			}
		}
	}
}

func TestParseSource(t *testing.T) {
	src := "Intro line.\n\n## First\n\n::: show step=2 set=\"gpus=16&link=ib-ndr\"\nSixteen GPUs\n:::\n\n" +
		"```\n## not a heading\n::: not a directive\n```\n\n" +
		"::: formula source=\"Patarasuk & Yuan, 2009\" href=https://doi.org/x\nT = 2(N−1)·α\n:::\n" +
		"::: numbers step=3\n:::\n::: teacher\nAsk *why*.\n\nThen ask again.\n:::\n"
	blocks, errs := parseSource("x.md", []byte(src))
	if len(errs) > 0 {
		t.Fatalf("parseSource: %v", errs)
	}
	type got struct {
		kind  blockKind
		line  int
		args  string
		lines int
	}
	var gs []got
	for _, b := range blocks {
		keys := make([]string, 0, len(b.args))
		for k, v := range b.args {
			keys = append(keys, k+"="+v)
		}
		slices.Sort(keys)
		gs = append(gs, got{b.kind, b.line, strings.Join(keys, " "), len(b.lines)})
	}
	want := []got{
		{blockProse, 1, "", 2},
		{blockHeading, 3, "", 1},
		{blockProse, 4, "", 1},
		{blockShow, 5, "set=gpus=16&link=ib-ndr step=2", 1},
		{blockProse, 8, "", 6},
		{blockFormula, 14, "href=https://doi.org/x source=Patarasuk & Yuan, 2009", 1},
		{blockNumbers, 17, "step=3", 0},
		{blockTeacher, 19, "", 3},
	}
	if !slices.Equal(gs, want) {
		t.Errorf("parseSource blocks:\n got  %+v\n want %+v", gs, want)
	}
}

func TestParseSourceErrors(t *testing.T) {
	for _, c := range []struct {
		name, src, want string
	}{
		{"unknown", "text\n\n::: video step=1\n:::\n", "x.md:3: unknown directive ::: video"},
		{"unclosed", "::: show step=1\nlabel\n", "x.md:1: ::: show is never closed"},
		{"stray", "text\n:::\n", "x.md:2: a closing \":::\" without an open block"},
		{"nested", "::: teacher\n::: show step=1\n:::\n", "x.md:2: \"::: show step=1\" inside the ::: teacher block opened at line 1"},
		{"no step", "\n::: numbers\n:::\n", "x.md:2: ::: numbers needs step="},
		{"unknown key", "::: show step=1 gpus=4\n:::\n", "x.md:1: ::: show has no key \"gpus\""},
		{"unquoted", "::: formula source=Patarasuk & Yuan\nT\n:::\n", "x.md:1: ::: formula: \"&\" is not key=value"},
		{"open quote", "::: formula source=\"Patarasuk\nT\n:::\n", "x.md:1: ::: formula: the value of source has no closing quote"},
		{"two labels", "::: show step=1\none\ntwo\n:::\n", "x.md:1: ::: show takes one optional line, the button's label; it has 2"},
		{"numbers lines", "::: numbers step=1\nrow\n:::\n", "x.md:1: ::: numbers takes no lines"},
		{"empty formula", "::: formula source=\"X\"\n:::\n", "x.md:1: ::: formula takes the formula"},
		{"h1", "# Title\n", "x.md:1: a level-1 heading"},
		{"twice", "::: show step=1 step=2\n:::\n", "x.md:1: ::: show: step is given twice"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, errs := parseSource("x.md", []byte(c.src))
			if err := errors.Join(errs...); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("parseSource(%q) = %v, want an error containing %q", c.src, err, c.want)
			}
		})
	}
}

func TestParseGlossaryErrors(t *testing.T) {
	lessons := []string{"roofline"}
	full := "en: a\nzh: 甲\ndef.en: A.\ndef.zh: 甲。\n"
	for _, c := range []struct {
		name, src, want string
	}{
		{"no zh", "## a\nen: a\ndef.en: A.\ndef.zh: 甲。\n", "g.txt:1: glossary entry a has no zh: line"},
		{"no def", "\n## a\nen: a\nzh: 甲\ndef.zh: 甲。\n", "g.txt:2: glossary entry a has no def.en: line"},
		{"unknown key", "## a\n" + full + "note: x\n", "g.txt:6: glossary entry a: unknown key \"note\""},
		{"bad lesson", "## a\n" + full + "lesson: nope\n", "g.txt:6: glossary entry a: lesson \"nope\" is not a lesson id"},
		{"bad see", "## a\n" + full + "see: b\n", "g.txt:6: glossary entry a: see \"b\", which is not an entry"},
		{"duplicate", "## a\n" + full + "\n## a\n" + full, "g.txt:7: glossary entry a is defined twice (first at line 1)"},
		{"bad id", "## A b\n" + full, "g.txt:1: glossary id \"A b\""},
		{"before", "en: a\n", "g.txt:1: a line before the first entry"},
		{"not key value", "## a\n" + full + "just words\n", "g.txt:6: glossary entry a: \"just words\" is not a \"key: value\" line"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, errs := parseGlossary("g.txt", []byte(c.src), lessons)
			if err := errors.Join(errs...); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("parseGlossary(%q) = %v, want an error containing %q", c.src, err, c.want)
			}
		})
	}
	entries, errs := parseGlossary("g.txt", []byte("## a\n"+full+"lesson: roofline\nsee: b\n\n## b\n"+full), lessons)
	if len(errs) > 0 || len(entries) != 2 || entries[0].Lesson != "roofline" || !slices.Equal(entries[0].See, []string{"b"}) || entries[1].Term["zh"] != "甲" {
		t.Errorf("parseGlossary of two good entries = %+v, %v", entries, errs)
	}
}

// copyFixture copies the fixture course into a temporary directory, with
// edits: file name → new content ("" removes the file).
func copyFixture(t *testing.T, edits map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	err := filepath.WalkDir(fixture, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(fixture, p)
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		dst := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		return os.WriteFile(dst, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	for name, content := range edits {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if content == "" {
			os.Remove(p)
			continue
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// The lesson-level checks: steps within the lesson, knobs it has, values
// they take, links to pages and glossary entries that exist, both
// languages present; each error names the file and line.
func TestBuildErrors(t *testing.T) {
	for _, c := range []struct {
		name  string
		edits map[string]string
		want  string
	}{
		{"step out of range", map[string]string{"en/roofline.md": "text\n\n::: show step=8\n:::\n"},
			"en/roofline.md:3: ::: show step=8 is out of range: the lesson has 7 steps"},
		{"numbers step", map[string]string{"zh/memory-budget.md": "::: numbers step=0\n:::\n"},
			"zh/memory-budget.md:1: ::: numbers step=0: want a step number from 1"},
		{"unknown knob", map[string]string{"en/ring-allreduce.md": "## x\n::: show step=1 set=\"gpus=16&colour=red\"\n:::\n"},
			"en/ring-allreduce.md:2: ::: show set=: ring-allreduce has no knob \"colour\""},
		{"bad value", map[string]string{"en/ring-allreduce.md": "::: show step=1 set=\"link=carrier-pigeon\"\n:::\n"},
			"en/ring-allreduce.md:1: ::: show set=: link=carrier-pigeon"},
		{"missing translation", map[string]string{"zh/roofline.md": ""},
			"zh/roofline.md: missing: every lesson needs a page in both languages"},
		{"missing glossary", map[string]string{"glossary.txt": ""}, "glossary.txt: missing"},
		{"glossary entry", map[string]string{"glossary.txt": "## hbm\nen: HBM\nzh: 高带宽内存\ndef.en: Memory.\n"},
			"glossary.txt:1: glossary entry hbm has no def.zh: line"},
		{"unknown page", map[string]string{"en/roofline.md": "Text.\n\nSee [the wall](memory-wal.html).\n"},
			"en/roofline.md:3: link memory-wal.html: the course has no page course/en/memory-wal.html"},
		{"unknown entry", map[string]string{"zh/roofline.md": "文字。\n\n[SRAM](glossary.html#sram)\n"},
			"zh/roofline.md:3: link glossary.html#sram: no glossary entry \"sram\""},
		{"rooted link", map[string]string{"en/index.md": "[home](/index.html)\n"},
			"en/index.md:1: link /index.html: use a relative link"},
		{"not a lesson", map[string]string{"en/rooflin.md": "Text.\n"}, "en/rooflin.md: \"rooflin\" is not a lesson id"},
		{"directive at home", map[string]string{"en/index.md": "::: numbers step=1\n:::\n"},
			"en/index.md:1: ::: numbers belongs in a lesson's page"},
		{"handout steps disagree", map[string]string{"zh/roofline.md": "::: numbers step=2\n:::\n"},
			"zh/roofline.md: the first ::: numbers block is at step 2"},
		{"formula href", map[string]string{"en/roofline.md": "::: formula source=\"X\" href=doi.org/1\nT\n:::\n"},
			"en/roofline.md:1: ::: formula href=doi.org/1: want an absolute http(s) URL"},
	} {
		t.Run(c.name, func(t *testing.T) {
			src := copyFixture(t, c.edits)
			err := build(src, t.TempDir(), fixtureLessons(t))
			want := filepath.Join(src, filepath.FromSlash(c.want))
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("build = %v\nwant an error containing %q", err, want)
			}
		})
	}
	// The full curriculum needs every lesson: the fixture's three are not
	// enough, and each missing page is named.
	err := Build(fixture, t.TempDir())
	if err == nil || !strings.Contains(err.Error(), filepath.Join(fixture, "zh", "memory-wall.md")+": missing") {
		t.Errorf("Build of the fixture (three of %d lessons) = %v, want the missing pages named", len(scenarios.All()), err)
	}
}

// stubSite writes what make build puts beside the course (the simulator's
// pages, embed.js, the posters), so that the link check sees a whole site.
func stubSite(t *testing.T, dist string, lessons []*scenarios.Scenario) {
	t.Helper()
	files := []string{"index.html", "embed.html", "embed.js", "favicon.svg"}
	for _, s := range lessons {
		files = append(files, "posters/"+HandoutPoster(s.ID, "en"), "posters/"+HandoutPoster(s.ID, "zh"))
	}
	for _, f := range files {
		p := filepath.Join(dist, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("stub"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

var (
	attrRe   = regexp.MustCompile(`\s(href|src|action)="([^"]*)"`)
	idRe     = regexp.MustCompile(`\sid="([^"]*)"`)
	scriptRe = regexp.MustCompile(`<script\b[^>]*>`)
	onAttrRe = regexp.MustCompile(`<[^>]*\son[a-z]+=`)
)

// checkLinks checks every generated page: each relative href, src and
// form action names a file in dist (fragments and queries aside), and a
// fragment into a course page names an id there. It also checks that
// no page has inline script. It returns the pages checked.
func checkLinks(t *testing.T, dist string) []string {
	t.Helper()
	var pages []string
	ids := map[string]map[string]bool{}
	idsOf := func(file string) map[string]bool {
		if m, ok := ids[file]; ok {
			return m
		}
		m := map[string]bool{}
		data, err := os.ReadFile(filepath.Join(dist, filepath.FromSlash(file)))
		if err == nil {
			for _, sm := range idRe.FindAllStringSubmatch(string(data), -1) {
				m[sm[1]] = true
			}
		}
		ids[file] = m
		return m
	}
	err := filepath.WalkDir(dist, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".html") {
			return err
		}
		rel, _ := filepath.Rel(dist, p)
		rel = filepath.ToSlash(rel)
		if !strings.HasPrefix(rel, "course/") {
			return nil // the stubs
		}
		pages = append(pages, rel)
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		html := string(data)
		for _, tag := range scriptRe.FindAllString(html, -1) {
			if !strings.Contains(tag, " src=") {
				t.Errorf("%s: inline script %s", rel, tag)
			}
		}
		if m := onAttrRe.FindString(html); m != "" {
			t.Errorf("%s: an on* attribute: %s", rel, m)
		}
		for _, m := range attrRe.FindAllStringSubmatch(html, -1) {
			raw := strings.ReplaceAll(m[2], "&amp;", "&")
			u, err := url.Parse(raw)
			if err != nil {
				t.Errorf("%s: %s=%q: %v", rel, m[1], raw, err)
				continue
			}
			if u.Scheme != "" || u.Host != "" {
				continue
			}
			target := rel
			if u.Path != "" {
				if strings.HasPrefix(u.Path, "/") {
					t.Errorf("%s: %s=%q is not relative", rel, m[1], raw)
					continue
				}
				target = path.Join(path.Dir(rel), u.Path)
			}
			if strings.HasPrefix(target, "../") {
				t.Errorf("%s: %s=%q leaves the site", rel, m[1], raw)
				continue
			}
			if _, err := os.Stat(filepath.Join(dist, filepath.FromSlash(target))); err != nil {
				t.Errorf("%s: %s=%q: no file %s", rel, m[1], raw, target)
				continue
			}
			if u.Fragment != "" && strings.HasPrefix(target, "course/") && strings.HasSuffix(target, ".html") && !idsOf(target)[u.Fragment] {
				t.Errorf("%s: %s=%q: %s has no id %q", rel, m[1], raw, target, u.Fragment)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return pages
}

func TestBuildFixture(t *testing.T) {
	lessons := fixtureLessons(t)
	dist := t.TempDir()
	stubSite(t, dist, lessons)
	if err := build(fixture, dist, lessons); err != nil {
		t.Fatalf("build: %v", err)
	}
	var want []string
	for _, lang := range langs {
		for _, name := range append([]string{"index", "glossary", "search", "validation"}, fixtureIDs...) {
			want = append(want, "course/"+lang+"/"+name+".html")
		}
	}
	pages := checkLinks(t, dist)
	for _, p := range pages {
		if data, _ := os.ReadFile(filepath.Join(dist, p)); strings.Contains(string(data), "⟦") {
			t.Errorf("%s: a string missing from the course's catalogue: %s", p, regexp.MustCompile(`⟦[^⟧]*⟧`).Find(data))
		}
	}
	slices.Sort(pages)
	slices.Sort(want)
	if !slices.Equal(pages, want) {
		t.Errorf("pages written:\n %v\nwant\n %v", pages, want)
	}
	for _, f := range []string{"sw.js", "course/course.css", "course/course.js", "course/search.js"} {
		if _, err := os.Stat(filepath.Join(dist, f)); err != nil {
			t.Errorf("%s not written: %v", f, err)
		}
	}
	sw, _ := os.ReadFile(filepath.Join(dist, "sw.js"))
	if !regexp.MustCompile(`var CACHE = "gpuscope-[0-9a-f]{12}";`).Match(sw) {
		t.Errorf("sw.js has no versioned cache name")
	}

	read := func(name string) string {
		data, err := os.ReadFile(filepath.Join(dist, filepath.FromSlash(name)))
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	en, zh := read("course/en/roofline.html"), read("course/zh/roofline.html")
	for _, want := range []string{
		`<html lang="en">`,
		`<h1>` + i18n.T("en", "lesson.roofline.title") + `</h1>`,
		`<a class="lang-switch" href="../zh/roofline.html"`,
		`<iframe id="course-sim" src="../../embed.html#scenario=roofline&amp;lang=en&amp;load=visible&amp;hide=title" title="gpuscope simulator: `,
		`loading="lazy" allow="fullscreen"></iframe>`,
		`<script src="../../embed.js"></script>`,
		`<script src="../course.js"></script>`,
		`<section id="two-ceilings" data-step="1" data-set="dtype=bf16&amp;intensity=10">`,
		`<section id="a-kernel-below-the-ridge" data-step="7" data-set="dtype=fp32&amp;intensity=10">`,
		`<button type="button" class="show-me" data-step="7" data-set="dtype=fp32&amp;intensity=10"><span aria-hidden="true">▶</span> FP32 at 10 FLOP/byte</button>`,
		`<figure class="formula">`,
		`<pre>attainable = min(peak, intensity × bandwidth)</pre>`,
		`<figcaption>Source: <a href="https://doi.org/10.1145/1498765.1498785" rel="noopener">Williams, Waterman &amp; Patterson, 2009</a></figcaption>`,
		`<a class="where" href="../../index.html#scenario=roofline&amp;step=1&amp;lang=en">Where does this number come from?</a>`,
		`<details class="teacher-notes">`,
		`<summary>Teacher notes</summary>`,
		`<p>Ask the class which ceiling a <strong>matrix product</strong> hits.</p>`,
		`<a class="present" href="../../index.html#scenario=roofline&amp;lang=en&amp;present=1"`,
		`<section class="handout">`,
		`<img src="../../posters/roofline-handout-en.png"`,
		`<button type="button" class="print-handout">Print handout</button>`,
		`<form class="search-form" action="search.html" method="get" role="search">`,
		`<pre><code>## not a heading: inside a code block`,
	} {
		if !strings.Contains(en, want) {
			t.Errorf("course/en/roofline.html lacks %s", want)
		}
	}
	for _, want := range []string{
		`<html lang="zh-Hans">`,
		`<a class="lang-switch" href="../en/roofline.html"`,
		`<button type="button" class="show-me" data-step="1" data-set="dtype=bf16&amp;intensity=10"><span aria-hidden="true">▶</span> ` + tr("zh", "show_me") + `</button>`,
		`<figcaption>来源： Williams, Waterman &amp; Patterson, 2009</figcaption>`,
		`这个数字从哪里来？`,
	} {
		if !strings.Contains(zh, want) {
			t.Errorf("course/zh/roofline.html lacks %s", want)
		}
	}
	// The numbers are the engine's.
	s, _ := scenarios.Get("roofline")
	les, err := scenarios.Prepare(s, s.Defaults())
	if err != nil {
		t.Fatal(err)
	}
	for _, lang := range langs {
		page := read("course/" + lang + "/roofline.html")
		for _, r := range les.Table(1, lang).Rows {
			cells := "<th scope=\"row\">" + htmlEscape(r.Label) + "</th><td>" + strings.Join(mapStrings(r.Cells, htmlEscape), "</td><td>") + "</td>"
			if !strings.Contains(page, cells) {
				t.Errorf("course/%s/roofline.html: no row %s", lang, cells)
			}
		}
	}
	// The teacher notes end with the lesson's questions and their answers:
	// memory-budget asks one at step 3.
	mb := read("course/en/memory-budget.html")
	p, _, err := scenarios.NewPlayerAt("scenario=memory-budget&lang=en&step=3")
	if err != nil {
		t.Fatal(err)
	}
	q, ok := p.Question()
	if !ok {
		t.Fatal("memory-budget step 3 asks no question: pick another step for this test")
	}
	for _, want := range []string{htmlEscape(q.Prompt), `<li class="correct">` + htmlEscape(q.Choices[q.Question.Answer]) + `</li>`, "Expected answer:"} {
		if !strings.Contains(mb, want) {
			t.Errorf("course/en/memory-budget.html: the teacher notes lack %s", want)
		}
	}
	// The Chinese page has no teacher block of its own: the questions get
	// one.
	if zmb := read("course/zh/memory-budget.html"); !strings.Contains(zmb, `<summary>教师备注</summary>`) || !strings.Contains(zmb, "参考答案：") {
		t.Errorf("course/zh/memory-budget.html: no teacher notes with the lesson's questions")
	}
	// The handout shows memory-budget's two tables as one, a column a step.
	if strings.Count(mb[strings.Index(mb, `<section class="handout">`):], "<table") != 1 {
		t.Errorf("course/en/memory-budget.html: the handout should merge the two one-column tables")
	}

	// Home page and glossary.
	home := read("course/en/index.html")
	for _, want := range []string{"A small course for the tests", `<section class="layer" id="layer-silicon">`, `<a href="roofline.html">` + i18n.T("en", "lesson.roofline.title") + `</a>`, htmlEscape(i18n.T("en", "lesson.roofline.summary"))} {
		if !strings.Contains(home, want) {
			t.Errorf("course/en/index.html lacks %s", want)
		}
	}
	gl := read("course/zh/glossary.html")
	for _, want := range []string{`<dt id="hbm">高带宽内存（HBM）<span class="other-term">（<span lang="en">HBM (high-bandwidth memory)</span>）</span></dt>`, `<a href="roofline.html">`, `<a href="#all-reduce">AllReduce</a>`} {
		if !strings.Contains(gl, want) {
			t.Errorf("course/zh/glossary.html lacks %s", want)
		}
	}

	// The search index holds every page and every glossary entry.
	for _, lang := range langs {
		var index []searchEntry
		if err := json.Unmarshal([]byte(read("course/"+lang+"/search.json")), &index); err != nil {
			t.Fatalf("search.json: %v", err)
		}
		urls := map[string]searchEntry{}
		for _, e := range index {
			urls[e.URL] = e
		}
		for _, u := range append([]string{"index.html", "glossary.html#hbm", "glossary.html#all-reduce"}, mapStrings(fixtureIDs, func(id string) string { return id + ".html" })...) {
			if e, ok := urls[u]; !ok || e.Title == "" || e.Text == "" {
				t.Errorf("course/%s/search.json: %s missing or empty (%+v)", lang, u, e)
			}
		}
		if e := urls["roofline.html"]; lang == "en" && (!slices.Contains(e.Headings, "Two ceilings") || !strings.Contains(e.Text, "The flat roof is the peak")) {
			t.Errorf("course/en/search.json: roofline.html = %+v; want its headings and text", e)
		}
	}
}

// The real course (site/course), once its files are there, builds and
// links up, and every lesson page links to the validation page.
func TestRealCourse(t *testing.T) {
	src := filepath.Join("..", "..", "site", "course")
	if md, _ := filepath.Glob(filepath.Join(src, "en", "*.md")); len(md) == 0 {
		t.Skip("site/course has no lesson pages yet")
	}
	dist := t.TempDir()
	stubSite(t, dist, scenarios.All())
	if err := Build(src, dist); err != nil {
		t.Fatalf("Build(site/course): %v", err)
	}
	if n, want := len(checkLinks(t, dist)), 2*(4+len(scenarios.All())); n != want {
		t.Errorf("%d pages written, want %d", n, want)
	}
	// Every lesson page links to the validation page from its numbers.
	for _, lang := range langs {
		for _, s := range scenarios.All() {
			data, err := os.ReadFile(filepath.Join(dist, "course", lang, s.ID+".html"))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(data), `<a class="validation-link" href="validation.html">`) {
				t.Errorf("course/%s/%s.html: no link to validation.html from its numbers (every lesson page needs a ::: numbers block)", lang, s.ID)
			}
		}
	}
}

// The printed handout's figure is the lesson at the step of its first
// table: zero-stages' handout tables step 3 (the three stages side by
// side), so its figure is step 3, not the embed poster's step 1.
func TestHandoutSteps(t *testing.T) {
	steps, err := HandoutSteps(filepath.Join("..", "..", "site", "course"))
	if err != nil {
		t.Fatal(err)
	}
	if len(steps) != len(scenarios.All()) {
		t.Errorf("%d lessons, want %d", len(steps), len(scenarios.All()))
	}
	for id, want := range map[string]int{"zero-stages": 3, "ring-allreduce": 6, "memory-budget": 3} {
		if steps[id] != want {
			t.Errorf("%s: handout step %d, want %d (its page's first ::: numbers)", id, steps[id], want)
		}
	}
	fixtureSteps, err := HandoutSteps(copyFixture(t, nil))
	if err == nil {
		t.Errorf("HandoutSteps of the three-lesson fixture = %v, want the missing pages named", fixtureSteps)
	}
}

func htmlEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&#34;", "'", "&#39;").Replace(s)
}

func mapStrings(in []string, f func(string) string) []string {
	out := make([]string, len(in))
	for i, s := range in {
		out[i] = f(s)
	}
	return out
}

func ExampleError() {
	fmt.Println(&Error{File: "site/course/en/roofline.md", Line: 12, Msg: "::: show step=9 is out of range: the lesson has 7 steps"})
	// Output: site/course/en/roofline.md:12: ::: show step=9 is out of range: the lesson has 7 steps
}

// Neither this package nor goldmark may end up in the simulator's
// WebAssembly.
func TestNotInWasm(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	cmd := exec.Command(goBin, "list", "-deps", "../../wasm")
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	out, err := cmd.Output()
	if err != nil {
		t.Skipf("go list ./wasm: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		if strings.Contains(dep, "goldmark") || strings.HasSuffix(dep, "/internal/course") {
			t.Errorf("the wasm build depends on %s", dep)
		}
	}
}
