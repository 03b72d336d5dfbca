package course

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/gpuscope/gpuscope/engine/validate"
	"github.com/gpuscope/gpuscope/scenarios"
	"github.com/gpuscope/gpuscope/scenarios/i18n"
)

//go:embed assets templates
var files embed.FS

var pageTemplates = template.Must(template.New("").Funcs(template.FuncMap{
	"tr":  tr,
	"inc": func(i int) int { return i + 1 },
	"letter": func(i int) string {
		return string(rune('A' + i))
	},
}).ParseFS(files, "templates/*.html"))

// Build reads the course's sources in srcDir (FORMAT.md there) and writes
// the course into distDir, the built site (see the package comment). It
// needs a page for every lesson of the curriculum in both languages. All
// the problems it finds are returned together, each naming its file and
// line.
func Build(srcDir, distDir string) error {
	return build(srcDir, distDir, scenarios.All())
}

// build is Build for a set of lessons (the tests use a few).
func build(srcDir, distDir string, lessons []*scenarios.Scenario) error {
	b := newBuilder(srcDir, distDir, lessons)
	b.layers()
	b.readGlossary()
	docs := b.readDocs()
	b.handoutSteps(docs)
	rows, err := validate.Rows()
	if err != nil {
		b.fail(fmt.Errorf("the validation page (engine/validate): %v", err))
	}
	b.validation = rows
	if len(b.errs) > 0 {
		return errors.Join(b.errs...)
	}
	out := map[string][]byte{} // path under distDir → content
	for _, lang := range langs {
		b.renderLanguage(lang, docs[lang], out)
	}
	if len(b.errs) > 0 {
		return errors.Join(b.errs...)
	}
	for _, name := range []string{"course.css", "course.js", "search.js"} {
		data, err := files.ReadFile("assets/" + name)
		if err != nil {
			return err
		}
		out["course/"+name] = data
	}
	sw, err := files.ReadFile("assets/sw.js")
	if err != nil {
		return err
	}
	out["sw.js"] = bytes.ReplaceAll(sw, []byte("__VERSION__"), []byte(version(out)))
	return writeAll(distDir, out)
}

// newBuilder is a builder of the course under srcDir for lessons.
func newBuilder(srcDir, distDir string, lessons []*scenarios.Scenario) *builder {
	b := &builder{src: srcDir, dist: distDir, lessons: lessons, byID: map[string]*scenarios.Scenario{}}
	for _, s := range lessons {
		b.ids = append(b.ids, s.ID)
		b.byID[s.ID] = s
	}
	return b
}

// version is a hash of the course's files, naming the service worker's
// cache: a new build gets a new cache, and the old one is dropped.
func version(out map[string][]byte) string {
	names := make([]string, 0, len(out))
	for n := range out {
		names = append(names, n)
	}
	slices.Sort(names)
	h := sha256.New()
	for _, n := range names {
		fmt.Fprintf(h, "%s %d\n", n, len(out[n]))
		h.Write(out[n])
	}
	return hex.EncodeToString(h.Sum(nil))[:12]
}

func writeAll(dist string, out map[string][]byte) error {
	for name, data := range out {
		p := filepath.Join(dist, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// builder carries one build.
type builder struct {
	src, dist string
	lessons   []*scenarios.Scenario
	ids       []string
	byID      map[string]*scenarios.Scenario
	layerOf   map[string]scenarios.Layer
	glossary  []*Entry
	entryByID map[string]*Entry
	// validation are engine/validate's rows, for the validation page.
	validation []validate.Row
	errs       []error
}

func (b *builder) fail(err ...error) { b.errs = append(b.errs, err...) }

// rel is a source file's name as messages show it: under srcDir.
func (b *builder) rel(name string) string { return filepath.Join(b.src, filepath.FromSlash(name)) }

// layers files each lesson under its kind's layer (scenarios/kinds.go);
// the layers come in the curriculum's order, scenarios.Layers
// (scenarios/data/curriculum.txt lists the lessons in this order,
// ring-allreduce, the site's opening, aside).
func (b *builder) layers() {
	b.layerOf = map[string]scenarios.Layer{}
	for _, s := range b.lessons {
		b.layerOf[s.ID] = s.LessonKind().Layer
		if b.layerOf[s.ID] == "" {
			b.fail(fmt.Errorf("lesson %s: kind %q has no layer (scenarios/kinds.go)", s.ID, s.Kind))
		}
	}
}

func (b *builder) readGlossary() {
	name := b.rel("glossary.txt")
	src, err := os.ReadFile(name)
	if err != nil {
		b.fail(&Error{File: name, Msg: "missing: the course needs its glossary (FORMAT.md)"})
		return
	}
	entries, errs := parseGlossary(name, src, b.ids)
	b.fail(errs...)
	b.glossary = entries
	b.entryByID = map[string]*Entry{}
	for _, e := range entries {
		b.entryByID[e.ID] = e
	}
}

// doc is a parsed source file.
type doc struct {
	file   string
	blocks []block
}

// readDocs reads index.md and every lesson's page in both languages.
func (b *builder) readDocs() map[string]map[string]*doc {
	docs := map[string]map[string]*doc{}
	for _, lang := range langs {
		docs[lang] = map[string]*doc{}
		names := append([]string{"index"}, b.ids...)
		for _, id := range names {
			name := b.rel(lang + "/" + id + ".md")
			src, err := os.ReadFile(name)
			if err != nil {
				msg := "missing: every lesson needs a page in both languages"
				if id == "index" {
					msg = "missing: the home page's introduction"
				}
				if errors.Is(err, os.ErrNotExist) {
					b.fail(&Error{File: name, Msg: msg})
				} else {
					b.fail(&Error{File: name, Msg: err.Error()})
				}
				continue
			}
			blocks, errs := parseSource(name, src)
			b.fail(errs...)
			d := &doc{file: name, blocks: blocks}
			if id == "index" {
				for _, bl := range blocks {
					if bl.kind != blockProse && bl.kind != blockHeading {
						b.fail(&Error{File: name, Line: bl.line, Msg: fmt.Sprintf("::: %s belongs in a lesson's page, not the home page", bl.name)})
					}
				}
			} else {
				b.checkLesson(d, b.byID[id])
			}
			docs[lang][id] = d
		}
		// A page that is no lesson's is most likely a misspelt id.
		entries, err := os.ReadDir(b.rel(lang))
		if err != nil {
			continue
		}
		for _, e := range entries {
			id, ok := strings.CutSuffix(e.Name(), ".md")
			if !ok || e.IsDir() || id == "index" || b.byID[id] != nil {
				continue
			}
			if _, known := scenarios.Get(id); known && len(b.lessons) < len(scenarios.All()) {
				continue // a lesson the tests' build leaves out
			}
			b.fail(&Error{File: b.rel(lang + "/" + e.Name()), Msg: fmt.Sprintf("%q is not a lesson id (scenarios/data/curriculum.txt lists them)", id)})
		}
	}
	return docs
}

// checkLesson checks a lesson page's directives against its lesson:
// steps in range, knobs that exist with values they accept.
func (b *builder) checkLesson(d *doc, s *scenarios.Scenario) {
	for i := range d.blocks {
		bl := &d.blocks[i]
		switch bl.kind {
		case blockShow, blockNumbers:
			if _, err := stepArg(bl, len(s.Steps)); err != nil {
				b.fail(&Error{File: d.file, Line: bl.line, Msg: err.Error()})
			}
			if set, ok := bl.args["set"]; ok {
				if _, err := parseSet(s, set); err != nil {
					b.fail(&Error{File: d.file, Line: bl.line, Msg: "::: show set=: " + err.Error()})
				}
			}
		case blockFormula:
			if h, ok := bl.args["href"]; ok {
				u, err := url.Parse(h)
				if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
					b.fail(&Error{File: d.file, Line: bl.line, Msg: fmt.Sprintf("::: formula href=%s: want an absolute http(s) URL", h)})
				}
			}
			if strings.TrimSpace(bl.args["source"]) == "" {
				b.fail(&Error{File: d.file, Line: bl.line, Msg: "::: formula source= is empty: say who, what and when"})
			}
		}
	}
}

// assignment is one knob=value of a show block's set=.
type assignment struct{ knob, value string }

// parseSet reads set="knob=value&knob=value", checking each knob and
// value against the lesson; values come back in canonical form.
func parseSet(s *scenarios.Scenario, set string) ([]assignment, error) {
	var out []assignment
	seen := map[string]bool{}
	for _, part := range strings.Split(set, "&") {
		if part == "" {
			continue
		}
		k, v, ok := strings.Cut(part, "=")
		if !ok {
			return nil, fmt.Errorf("%q is not knob=value", part)
		}
		knob, found := s.Knob(k)
		if !found {
			names := make([]string, len(s.Knobs))
			for i, kn := range s.Knobs {
				names[i] = kn.Name
			}
			return nil, fmt.Errorf("%s has no knob %q (knobs: %s)", s.ID, k, strings.Join(names, ", "))
		}
		if seen[k] {
			return nil, fmt.Errorf("knob %s is set twice", k)
		}
		seen[k] = true
		canon, ierr := knob.Parse(v)
		if ierr != nil {
			return nil, fmt.Errorf("%s=%s: %s", k, v, ierr.Error())
		}
		out = append(out, assignment{k, canon})
	}
	if len(out) == 0 {
		return nil, errors.New("empty: give knob=value pairs joined by &")
	}
	return out, nil
}

// ---- Rendering ---------------------------------------------------------

// navLesson is a lesson in the header's menus and on the home page.
type navLesson struct {
	ID, Title, Summary, Href string
	Current                  bool
}

type navLayer struct {
	Key, Name, About string
	Lessons          []navLesson
}

// page is what every page template gets.
type page struct {
	Lang, HTMLLang, Other, OtherHTMLLang string
	Title                                string // <title>
	Heading                              string // <h1>
	File                                 string // the file name in course/LANG/
	Kind                                 string // lesson, home, glossary, search, validation
	Nav                                  []navLayer
	Lesson                               *lessonView
	Intro                                template.HTML
	Glossary                             []glossaryView
	Validation                           *validationView
}

// T is a course string in the page's language.
func (p *page) T(key string, args ...string) string { return tr(p.Lang, key, args...) }

type lessonView struct {
	ID, Title, Summary                      string
	SimSrc, SimTitle, PresentHref, OpenHref string
	PosterSrc                               string
	Sections                                []sectionView
	Handout                                 handoutView
	Prev, Next                              *navLesson
}

type sectionView struct {
	ID    string
	Step  int
	Set   string
	Parts []template.HTML
}

type handoutView struct {
	Tables   []template.HTML
	Formulas []template.HTML
}

type glossaryView struct {
	ID, Term, OtherTerm string
	Def                 template.HTML
	Lesson              *navLesson
	See                 []navLesson
}

// searchEntry is one page (or glossary entry) in search.json.
type searchEntry struct {
	URL      string   `json:"url"`
	Title    string   `json:"title"`
	Headings []string `json:"headings"`
	Text     string   `json:"text"`
}

func (b *builder) nav(lang, current string) []navLayer {
	var out []navLayer
	for _, l := range scenarios.Layers {
		key := string(l)
		nl := navLayer{Key: key, Name: tr(lang, "layer."+key), About: tr(lang, "layer."+key+".about")}
		for _, s := range b.lessons {
			if b.layerOf[s.ID] == l {
				nl.Lessons = append(nl.Lessons, b.navLesson(lang, s, current))
			}
		}
		out = append(out, nl)
	}
	return out
}

func (b *builder) navLesson(lang string, s *scenarios.Scenario, current string) navLesson {
	return navLesson{ID: s.ID, Title: i18n.T(lang, s.Title), Summary: i18n.T(lang, s.Summary), Href: s.ID + ".html", Current: s.ID == current}
}

// order is the lessons in the course's reading order: by layer, then in
// curriculum order.
func (b *builder) order() []*scenarios.Scenario {
	var out []*scenarios.Scenario
	for _, l := range scenarios.Layers {
		for _, s := range b.lessons {
			if b.layerOf[s.ID] == l {
				out = append(out, s)
			}
		}
	}
	return out
}

func (b *builder) newPage(lang, file, kind, heading string) *page {
	current := strings.TrimSuffix(file, ".html")
	title := heading + " · " + tr(lang, "course")
	if kind == "home" {
		title = tr(lang, "course")
	}
	return &page{
		Lang: lang, HTMLLang: htmlLang[lang], Other: other(lang), OtherHTMLLang: htmlLang[other(lang)],
		Title: title, Heading: heading, File: file, Kind: kind, Nav: b.nav(lang, current),
	}
}

func (b *builder) renderLanguage(lang string, docs map[string]*doc, out map[string][]byte) {
	dir := "course/" + lang + "/"
	var index []searchEntry
	emit := func(p *page) {
		var buf bytes.Buffer
		if err := pageTemplates.ExecuteTemplate(&buf, "page.html", p); err != nil {
			b.fail(fmt.Errorf("course/%s/%s: %v", lang, p.File, err))
			return
		}
		out[dir+p.File] = buf.Bytes()
	}

	// The home page.
	if d := docs["index"]; d != nil {
		p := b.newPage(lang, "index.html", "home", tr(lang, "course"))
		r := b.renderProse(d, lang, d.blocks)
		p.Intro = r.HTML
		emit(p)
		index = append(index, searchEntry{URL: "index.html", Title: tr(lang, "course"), Headings: r.Headings, Text: collapse(r.Text)})
	}

	// The lessons.
	order := b.order()
	for i, s := range order {
		d := docs[s.ID]
		if d == nil {
			continue
		}
		title := i18n.T(lang, s.Title)
		p := b.newPage(lang, s.ID+".html", "lesson", title)
		lv, entry := b.renderLesson(lang, s, d)
		if i > 0 {
			prev := b.navLesson(lang, order[i-1], "")
			lv.Prev = &prev
		}
		if i+1 < len(order) {
			next := b.navLesson(lang, order[i+1], "")
			lv.Next = &next
		}
		p.Lesson = lv
		emit(p)
		index = append(index, entry)
	}

	// The glossary.
	g := b.newPage(lang, "glossary.html", "glossary", tr(lang, "glossary"))
	for _, e := range b.glossary {
		r, err := renderMarkdown(e.Def[lang], e.Line)
		if err != nil {
			b.fail(&Error{File: b.rel("glossary.txt"), Line: e.Line, Msg: err.Error()})
			continue
		}
		b.checkLinks(b.rel("glossary.txt"), lang, r.Links, true)
		gv := glossaryView{ID: e.ID, Term: e.Term[lang], OtherTerm: e.Term[other(lang)], Def: r.HTML}
		if s := b.byID[e.Lesson]; s != nil {
			nl := b.navLesson(lang, s, "")
			gv.Lesson = &nl
		}
		for _, id := range e.See {
			if se := b.entryByID[id]; se != nil {
				gv.See = append(gv.See, navLesson{ID: id, Title: se.Term[lang], Href: "#" + id})
			}
		}
		g.Glossary = append(g.Glossary, gv)
		index = append(index, searchEntry{URL: "glossary.html#" + e.ID, Title: e.Term[lang] + tr(lang, "paren.open") + e.Term[other(lang)] + tr(lang, "paren.close"), Headings: []string{tr(lang, "glossary")}, Text: collapse(r.Text)})
	}
	emit(g)

	// How close the engine's numbers are to published runs.
	vp := b.newPage(lang, validationFile, "validation", tr(lang, "validation.title"))
	vp.Validation = validationPage(lang, b.validation)
	emit(vp)
	index = append(index, validationSearch(lang, vp.Validation))

	// Search.
	emit(b.newPage(lang, "search.html", "search", tr(lang, "search")))
	js, err := json.Marshal(index)
	if err != nil {
		b.fail(err)
		return
	}
	out[dir+"search.json"] = js
}

// renderProse renders a run of prose and headings (the home page).
func (b *builder) renderProse(d *doc, lang string, blocks []block) rendered {
	var all rendered
	var html strings.Builder
	for _, bl := range blocks {
		if bl.kind != blockProse && bl.kind != blockHeading {
			continue
		}
		r, err := renderMarkdown(bl.text(), bl.bodyLine)
		if err != nil {
			b.fail(&Error{File: d.file, Line: bl.line, Msg: err.Error()})
			continue
		}
		b.checkLinks(d.file, lang, r.Links, false)
		html.WriteString(string(r.HTML))
		all.Text += r.Text
		all.Headings = append(all.Headings, r.Headings...)
	}
	all.HTML = template.HTML(html.String())
	return all
}

// checkLinks checks a page's relative links that point into the course:
// the page must be one the build writes, and a glossary anchor an entry.
// Links to the rest of the site (../../index.html) are left to the tests.
func (b *builder) checkLinks(file, lang string, links []link, inGlossary bool) {
	for _, l := range links {
		p, frag, ok := relativeTarget(l.Dest)
		if !ok {
			continue
		}
		if strings.HasPrefix(l.Dest, "/") {
			b.fail(&Error{File: file, Line: l.Line, Msg: fmt.Sprintf("link %s: use a relative link (the site may live in any folder)", l.Dest)})
			continue
		}
		if p == "" {
			if inGlossary && frag != "" && b.entryByID[frag] == nil {
				b.fail(&Error{File: file, Line: l.Line, Msg: fmt.Sprintf("link %s: no glossary entry %q", l.Dest, frag)})
			}
			continue
		}
		target := path.Join("course", lang, p)
		if !strings.HasPrefix(target, "course/") {
			continue
		}
		tlang, name, _ := strings.Cut(strings.TrimPrefix(target, "course/"), "/")
		known := false
		switch {
		case tlang == "course.css" || tlang == "course.js" || tlang == "search.js":
			known = name == ""
		case slices.Contains(langs, tlang):
			id := strings.TrimSuffix(name, ".html")
			known = name == "index.html" || name == "glossary.html" || name == "search.html" || name == "search.json" || name == validationFile ||
				(strings.HasSuffix(name, ".html") && b.byID[id] != nil)
		}
		if !known {
			b.fail(&Error{File: file, Line: l.Line, Msg: fmt.Sprintf("link %s: the course has no page %s (link a lesson as ID.html, the glossary as glossary.html#ID)", l.Dest, target)})
			continue
		}
		if strings.HasSuffix(name, "glossary.html") && frag != "" && b.entryByID[frag] == nil {
			b.fail(&Error{File: file, Line: l.Line, Msg: fmt.Sprintf("link %s: no glossary entry %q (glossary.txt)", l.Dest, frag)})
		}
	}
}

// renderLesson renders a lesson's page body and its search entry.
func (b *builder) renderLesson(lang string, s *scenarios.Scenario, d *doc) (*lessonView, searchEntry) {
	title := i18n.T(lang, s.Title)
	frag := "scenario=" + s.ID + "&lang=" + lang
	lv := &lessonView{
		ID: s.ID, Title: title, Summary: i18n.T(lang, s.Summary),
		SimSrc:      "../../embed.html#" + frag + "&load=visible&hide=title",
		SimTitle:    tr(lang, "sim.title", "title", title),
		PresentHref: "../../index.html#" + frag + "&present=1",
		OpenHref:    "../../index.html#" + frag,
		PosterSrc:   "../../posters/" + HandoutPoster(s.ID, lang),
	}
	entry := searchEntry{URL: s.ID + ".html", Title: title, Headings: []string{}}
	var text strings.Builder
	text.WriteString(lv.Summary + "\n")

	les, err := scenarios.Prepare(s, s.Defaults())
	if err != nil {
		b.fail(fmt.Errorf("%s: lesson %s: %v", d.file, s.ID, err))
		return lv, entry
	}
	touched := touchedKnobs(s, d)

	// Sections: from each "## " heading to the next; what comes before
	// the first heading is a section of its own.
	ids := map[string]int{}
	cur := -1 // index of the current section
	startSection := func(heading string) {
		lv.Sections = append(lv.Sections, sectionView{ID: sectionID(heading, ids, len(lv.Sections)+1)})
		cur = len(lv.Sections) - 1
	}
	var tables []tableView
	// The last teacher block: its section, its index there, its view.
	teacherSec, teacherPart := -1, -1
	var lastTeacher *teacherView
	for i := range d.blocks {
		bl := &d.blocks[i]
		if bl.kind == blockHeading {
			startSection(headingText(bl.lines[0]))
		} else if cur < 0 {
			startSection("")
		}
		sec := &lv.Sections[cur]
		var part template.HTML
		switch bl.kind {
		case blockProse, blockHeading:
			r, err := renderMarkdown(bl.text(), bl.bodyLine)
			if err != nil {
				b.fail(&Error{File: d.file, Line: bl.line, Msg: err.Error()})
				continue
			}
			b.checkLinks(d.file, lang, r.Links, false)
			part = r.HTML
			entry.Headings = append(entry.Headings, r.Headings...)
			text.WriteString(r.Text)
		case blockShow:
			step, _ := stepArg(bl, len(s.Steps))
			set, _ := parseSet(s, bl.args["set"])
			sv := showView{Step: step, Set: encodeSet(touched, set), Label: tr(lang, "show_me")}
			if len(bl.lines) > 0 {
				sv.Label = strings.TrimSpace(bl.lines[0])
			}
			if sec.Step == 0 {
				sec.Step, sec.Set = sv.Step, sv.Set
			}
			part = b.exec("show", sv)
			text.WriteString(sv.Label + "\n")
		case blockFormula:
			fv := formulaView{Formula: strings.Join(bl.lines, "\n"), Source: bl.args["source"], Href: bl.args["href"], SourceLabel: tr(lang, "source")}
			part = b.exec("formula", fv)
			lv.Handout.Formulas = append(lv.Handout.Formulas, part)
			text.WriteString(fv.Formula + "\n" + fv.Source + "\n")
		case blockNumbers:
			step, _ := stepArg(bl, len(s.Steps))
			tv := numbersView(les, lang, s, step)
			part = b.exec("numbers", tv)
			tables = append(tables, tv)
			text.WriteString(tv.Caption + "\n")
			for _, r := range tv.Rows {
				text.WriteString(r.Label + " " + strings.Join(r.Cells, " ") + "\n")
			}
		case blockTeacher:
			r, err := renderMarkdown(bl.text(), bl.bodyLine)
			if err != nil {
				b.fail(&Error{File: d.file, Line: bl.line, Msg: err.Error()})
				continue
			}
			b.checkLinks(d.file, lang, r.Links, false)
			lastTeacher = &teacherView{Summary: tr(lang, "teacher"), Notes: r.HTML}
			text.WriteString(r.Text)
			teacherSec, teacherPart = cur, len(sec.Parts)
		}
		sec.Parts = append(sec.Parts, part)
	}
	// The lesson's questions go into the last teacher block, or a teacher
	// block of their own at the end.
	qs, qerr := questions(s, lang)
	if qerr != nil {
		b.fail(fmt.Errorf("%s: lesson %s: %v", d.file, s.ID, qerr))
	}
	if lastTeacher == nil && len(qs) > 0 {
		if cur < 0 {
			startSection("")
		}
		lastTeacher = &teacherView{Summary: tr(lang, "teacher")}
		teacherSec, teacherPart = cur, len(lv.Sections[cur].Parts)
		lv.Sections[cur].Parts = append(lv.Sections[cur].Parts, "")
	}
	if lastTeacher != nil {
		lastTeacher.Questions = qs
		lastTeacher.QuestionsTitle = tr(lang, "questions")
		lastTeacher.AnswerLabel = tr(lang, "question.answer")
		for _, q := range qs {
			text.WriteString(q.Prompt + " " + strings.Join(q.Choices, " ") + " " + q.Reveal + "\n")
		}
		lv.Sections[teacherSec].Parts[teacherPart] = b.exec("teacher", lastTeacher)
	}
	for _, tv := range handoutTables(lang, tables) {
		lv.Handout.Tables = append(lv.Handout.Tables, b.exec("numbers", tv))
	}
	entry.Text = collapse(text.String())
	return lv, entry
}

// exec runs one of the block templates.
func (b *builder) exec(name string, data any) template.HTML {
	var buf bytes.Buffer
	if err := pageTemplates.ExecuteTemplate(&buf, name, data); err != nil {
		b.fail(fmt.Errorf("template %s: %v", name, err))
	}
	return template.HTML(buf.String())
}

type showView struct {
	Step       int
	Set, Label string
}

type formulaView struct {
	Formula, Source, Href, SourceLabel string
}

type tableView struct {
	Step      int
	Wide      bool // four value columns or more
	Caption   string
	Columns   []string // the value columns' heads; Columns[0] labels the rows
	SourceCol string
	Rows      []rowView
	Where     string // the link's text; "" for none
	Href      string
	// Valid is the text of the link to the validation page, shown with
	// Where.
	Valid string
}

type rowView struct {
	Key    string
	Label  string
	Cells  []string
	Source string
	Code   bool // a command line, not a number
}

type teacherView struct {
	Summary        string
	Notes          template.HTML
	QuestionsTitle string
	AnswerLabel    string
	Questions      []questionView
}

type questionView struct {
	Step      int
	StepLabel string
	Prompt    string
	Choices   []string
	Answer    int
	Reveal    string
}

// numbersView is a step's numbers table at the lesson's defaults.
func numbersView(les *scenarios.Lesson, lang string, s *scenarios.Scenario, step int) tableView {
	t := les.Table(step, lang)
	st := s.Steps[step-1]
	stepTitle := i18n.T(lang, st.Title, les.StepNarrationArgs(step, lang)...)
	tv := tableView{
		Step:      step,
		Caption:   tr(lang, "numbers.caption", "n", strconv.Itoa(step), "title", stepTitle),
		Columns:   t.Columns,
		Wide:      len(t.Columns) > 4,
		SourceCol: i18n.T(lang, "ui.source"),
		Where:     tr(lang, "numbers.where"),
		Valid:     tr(lang, "numbers.validation"),
		Href:      "../../index.html#scenario=" + s.ID + "&step=" + strconv.Itoa(step) + "&lang=" + lang,
	}
	for _, r := range t.Rows {
		tv.Rows = append(tv.Rows, rowView{Key: r.Key, Label: r.Label, Cells: r.Cells, Source: r.Source, Code: r.Key == "command"})
	}
	return tv
}

// handoutTables are a page's numbers tables as the one-page handout
// shows them: without the "see for yourself" link and the command lines,
// a table shown twice once, and the one-value-column tables of several
// steps that measure mostly the same quantities merged into one table
// with a column per step ("—" where a step lacks a row).
func handoutTables(lang string, tables []tableView) []tableView {
	var groups []*handoutGroup
	overlap := func(g *handoutGroup, t tableView) bool {
		if g.t.Columns[0] != t.Columns[0] {
			return false
		}
		keys := map[string]bool{}
		for _, r := range g.t.Rows {
			keys[r.Key+"\x00"+r.Label] = true
		}
		n := 0
		for _, r := range t.Rows {
			if keys[r.Key+"\x00"+r.Label] {
				n++
			}
		}
		return 2*n >= min(len(g.t.Rows), len(t.Rows))
	}
	for _, t := range tables {
		t.Where, t.Href, t.Valid = "", "", ""
		var rows []rowView
		for _, r := range t.Rows {
			if !r.Code {
				rows = append(rows, r)
			}
		}
		t.Rows = rows
		var into *handoutGroup
		dup := false
		for _, g := range groups {
			if len(g.steps) == 1 && sameNumbers(g.t, t) {
				// The same numbers again (another step, or the same):
				// once, under both captions.
				if !strings.Contains(g.t.Caption, t.Caption) {
					g.t.Caption += " · " + t.Caption
				}
				dup = true
				break
			}
			if into == nil && g.one && len(t.Columns) == 2 && overlap(g, t) {
				into = g
			}
		}
		switch {
		case dup:
		case into == nil:
			groups = append(groups, &handoutGroup{t: t, steps: []int{t.Step}, one: len(t.Columns) == 2})
		default:
			into.merge(lang, t)
		}
	}
	out := make([]tableView, len(groups))
	for i, g := range groups {
		out[i] = g.t
	}
	return out
}

// sameNumbers reports whether two tables show the same rows and values.
func sameNumbers(a, b tableView) bool {
	return slices.Equal(a.Columns, b.Columns) && slices.EqualFunc(a.Rows, b.Rows, func(x, y rowView) bool {
		return x.Key == y.Key && x.Label == y.Label && slices.Equal(x.Cells, y.Cells)
	})
}

// handoutGroup is a handout table and the steps merged into it; one says
// its tables have one value column, so that it may take more.
type handoutGroup struct {
	t     tableView
	steps []int
	one   bool
}

// merge adds t's values as a column for its step, rows matched by key and
// label; rows only t has go at the end.
func (g *handoutGroup) merge(lang string, t tableView) {
	stepCol := func(n int) string { return tr(lang, "question.step", "n", strconv.Itoa(n)) }
	if len(g.steps) == 1 {
		g.t.Columns = []string{g.t.Columns[0], stepCol(g.steps[0])}
	}
	width := len(g.t.Columns) - 1 // value columns so far
	g.t.Columns = append(slices.Clone(g.t.Columns), stepCol(t.Step))
	g.t.Wide = len(g.t.Columns) > 4
	g.t.Caption += " · " + t.Caption
	g.steps = append(g.steps, t.Step)
	at := map[string]int{}
	rows := make([]rowView, len(g.t.Rows))
	for i, r := range g.t.Rows {
		r.Cells = append(slices.Clone(r.Cells), "—")
		rows[i] = r
		at[r.Key+"\x00"+r.Label] = i
	}
	for _, r := range t.Rows {
		if i, ok := at[r.Key+"\x00"+r.Label]; ok {
			rows[i].Cells[width] = r.Cells[0]
			continue
		}
		cells := make([]string, width+1)
		for j := range width {
			cells[j] = "—"
		}
		cells[width] = r.Cells[0]
		r.Cells = cells
		rows = append(rows, r)
	}
	g.t.Rows = rows
}

// questions are the lesson's prediction questions with their answers, as
// a reader at the lesson's defaults meets them in the simulator.
func questions(s *scenarios.Scenario, lang string) ([]questionView, error) {
	var out []questionView
	for i, st := range s.Steps {
		if st.Predict == "" {
			continue
		}
		n := i + 1
		p, _, err := scenarios.NewPlayerAt("scenario=" + s.ID + "&lang=" + lang + "&step=" + strconv.Itoa(n))
		if err != nil {
			return nil, err
		}
		q, ok := p.Question()
		if !ok {
			continue
		}
		if ierr := p.Answer(q.Question.Answer); ierr != nil {
			return nil, fmt.Errorf("step %d: answering its question: %s", n, ierr.Localize(lang))
		}
		if a, ok := p.Question(); ok {
			q = a
		}
		out = append(out, questionView{
			Step: n, StepLabel: tr(lang, "question.step", "n", strconv.Itoa(n)),
			Prompt: q.Prompt, Choices: q.Choices, Answer: q.Answer, Reveal: q.Reveal,
		})
	}
	return out, nil
}

// touchedKnobs are the knobs a page's show blocks set, in the lesson's
// order, with their defaults: a section that sets none of them puts them
// back, so that scrolling back and forth shows the same thing each time.
func touchedKnobs(s *scenarios.Scenario, d *doc) []assignment {
	set := map[string]bool{}
	for _, bl := range d.blocks {
		if bl.kind == blockShow {
			as, _ := parseSet(s, bl.args["set"])
			for _, a := range as {
				set[a.knob] = true
			}
		}
	}
	var out []assignment
	for _, k := range s.Knobs {
		if set[k.Name] {
			out = append(out, assignment{k.Name, k.Default})
		}
	}
	return out
}

// encodeSet is data-set for a show block: every touched knob, with the
// block's value or the default, as URLSearchParams reads it.
func encodeSet(touched, set []assignment) string {
	var parts []string
	for _, t := range touched {
		v := t.value
		for _, a := range set {
			if a.knob == t.knob {
				v = a.value
			}
		}
		parts = append(parts, url.QueryEscape(t.knob)+"="+url.QueryEscape(v))
	}
	return strings.Join(parts, "&")
}

// sectionID is an id for a section from its heading: lower case, words
// joined by '-', letters of any script kept; unique on the page.
func sectionID(heading string, seen map[string]int, n int) string {
	var sb strings.Builder
	dash := false
	for _, r := range strings.ToLower(heading) {
		switch {
		case r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127 && (unicode.IsLetter(r) || unicode.IsDigit(r)):
			if dash && sb.Len() > 0 {
				sb.WriteByte('-')
			}
			dash = false
			sb.WriteRune(r)
		default:
			dash = true
		}
	}
	id := sb.String()
	if id == "" {
		id = "section-" + strconv.Itoa(n)
	}
	seen[id]++
	if seen[id] > 1 {
		id += "-" + strconv.Itoa(seen[id])
	}
	return id
}
