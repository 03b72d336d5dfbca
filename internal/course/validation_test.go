package course

import (
	"encoding/json"
	"fmt"
	"html"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/gpuscope/gpuscope/engine/validate"
)

// vrowRe is one row of the validation page's table.
var vrowRe = regexp.MustCompile(`(?s)<tr class="vrow ([a-z]+)"><th scope="row"><code>([^<]*)</code></th>(.*?)</tr>`)

// The validation page (validation.html) is built in both languages from
// engine/validate's rows: one table row each, in order, with whether it
// was seen or unseen, the published and engine values, the signed error,
// the tolerance, the status and, for an open row, its note; the summary
// gives the mean |error| and the mean signed error over all rows and
// over the unseen rows, and the held rows' mean and maximum
// (validate.Summary's); the all-rows mean is set against Calculon's
// 3.65%, which is cited; the split's file and digest are named. The home
// page lists it, the search finds it, and every lesson's numbers table
// links to it.
func TestValidationPage(t *testing.T) {
	rows, err := validate.Rows()
	if err != nil {
		t.Fatal(err)
	}
	mean, maxAbs := validate.Summary(rows)
	held, open, within10 := 0, 0, 0
	// The means over all rows and over the unseen, by hand.
	var allAbs, allSigned, unseenAbs, unseenSigned float64
	unseen := 0
	for _, r := range rows {
		allAbs += math.Abs(r.Error) / float64(len(rows))
		allSigned += r.Error / float64(len(rows))
		if r.Unseen {
			unseen++
			unseenAbs += math.Abs(r.Error)
			unseenSigned += r.Error
		}
	}
	if unseen == 0 {
		t.Fatal("no unseen row")
	}
	unseenAbs /= float64(unseen)
	unseenSigned /= float64(unseen)
	for _, r := range rows {
		switch r.Status {
		case validate.Held:
			held++
		case validate.Open:
			open++
		}
		if math.Abs(r.Error) <= 0.10 {
			within10++
		}
	}
	if open == 0 {
		t.Log("engine/validate has no open row: the check that open rows show their note checks nothing")
	}

	lessons := fixtureLessons(t)
	dist := t.TempDir()
	stubSite(t, dist, lessons)
	if err := build(fixture, dist, lessons); err != nil {
		t.Fatalf("build: %v", err)
	}
	read := func(name string) string {
		data, err := os.ReadFile(filepath.Join(dist, filepath.FromSlash(name)))
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	for _, lang := range langs {
		where := "course/" + lang + "/validation.html"
		page := read(where)
		if !strings.Contains(page, "<h1>"+html.EscapeString(tr(lang, "validation.title"))+"</h1>") {
			t.Errorf("%s: no <h1> %q", where, tr(lang, "validation.title"))
		}
		got := vrowRe.FindAllStringSubmatch(page, -1)
		if len(got) != len(rows) {
			t.Fatalf("%s: %d table rows, want one per validate.Rows() row: %d", where, len(got), len(rows))
		}
		for i, r := range rows {
			status, name, cells := got[i][1], got[i][2], html.UnescapeString(got[i][3])
			if name != r.Name {
				t.Errorf("%s: row %d is %q, want %q (validate.Rows' order)", where, i+1, name, r.Name)
				continue
			}
			wantStatus := string(r.Status)
			if r.Status == validate.Held && math.Abs(r.Error) > r.Tolerance {
				wantStatus = "outside"
			}
			if status != wantStatus {
				t.Errorf("%s: %s has status %q, want %q", where, name, status, wantStatus)
			}
			// The values, written here independently of the page's
			// formatting code.
			seen := map[bool]string{true: "unseen", false: "seen"}[r.Unseen]
			for _, want := range []string{
				`<td class="seen ` + seen + `">` + tr(lang, "validation.seen."+seen) + `</td>`,
				`<td class="num">` + pageNumber(r.Published) + `</td>`,
				`<td class="num">` + pageNumber(r.Engine) + `</td>`,
				`<td class="num err">` + fmt.Sprintf("%+.1f%%", 100*r.Error) + `</td>`,
				`<td class="num">±` + strconv.FormatFloat(100*r.Tolerance, 'g', 4, 64) + `%</td>`,
				`<strong>` + tr(lang, "validation.status."+wantStatus) + `</strong>`,
				r.Source, r.Quantity,
			} {
				if !strings.Contains(cells, want) {
					t.Errorf("%s: row %s lacks %s:\n%s", where, name, want, cells)
				}
			}
			if r.Status == validate.Open && (r.Note == "" || !strings.Contains(cells, r.Note+"</p>")) {
				t.Errorf("%s: open row %s does not show its note %q", where, name, r.Note)
			}
			if strings.HasPrefix(r.Config, "gpuscope ") && !strings.Contains(cells, "<code>"+r.Config+"</code>") {
				t.Errorf("%s: row %s lacks its command <code>%s</code>", where, name, r.Config)
			}
		}
		for _, want := range []string{
			`<strong class="v-rows">` + strconv.Itoa(len(rows)) + `</strong>`,
			`<strong class="v-held">` + strconv.Itoa(held) + `</strong>`,
			`<strong class="v-open">` + strconv.Itoa(open) + `</strong>`,
			`<strong class="v-mean">` + fmt.Sprintf("%.2f%%", 100*mean) + `</strong>`,
			`<strong class="v-max">` + fmt.Sprintf("%.2f%%", 100*maxAbs) + `</strong>`,
			`<strong class="v-within10">` + strconv.Itoa(within10) + `</strong>`,
			`<strong class="v-meanall">` + fmt.Sprintf("%.2f%%", 100*allAbs) + `</strong>`,
			`<strong class="v-signedall">` + strings.Replace(fmt.Sprintf("%+.2f%%", 100*allSigned), "-", "−", 1) + `</strong>`,
			`<strong class="v-unseen">` + strconv.Itoa(unseen) + `</strong>`,
			`<strong class="v-meanunseen">` + fmt.Sprintf("%.2f%%", 100*unseenAbs) + `</strong>`,
			`<strong class="v-signedunseen">` + strings.Replace(fmt.Sprintf("%+.2f%%", 100*unseenSigned), "-", "−", 1) + `</strong>`,
			`<code>engine/validate/testdata/issue37/</code>`, `<code>665dae10</code>`,
			`<strong class="v-calculon">3.65%</strong>`,
			`<a href="https://doi.org/10.1145/3581784.3607102" rel="noopener" lang="en">Isaev et al., “Calculon: a Methodology and Tool for High-Level Codesign of Systems and Software”, SC ’23</a>`,
			`<div class="table-scroll" tabindex="0" role="region"`,
		} {
			if !strings.Contains(page, want) {
				t.Errorf("%s lacks %s", where, want)
			}
		}
		compare := "validation.compare.below"
		if allAbs >= 0.0365 {
			compare = "validation.compare.above"
		}
		if before, _, _ := strings.Cut(tr(lang, compare), "{"); !strings.Contains(page, html.EscapeString(before)) {
			t.Errorf("%s: the comparison with Calculon does not say %q", where, before)
		}

		// Listed on the home page and in the search index; linked from
		// every lesson's numbers tables.
		if home := read("course/" + lang + "/index.html"); !strings.Contains(home, `<h2><a href="validation.html">`+html.EscapeString(tr(lang, "validation.title"))+`</a></h2>`) {
			t.Errorf("course/%s/index.html does not list validation.html", lang)
		}
		var index []searchEntry
		if err := json.Unmarshal([]byte(read("course/"+lang+"/search.json")), &index); err != nil {
			t.Fatal(err)
		}
		found := false
		for _, e := range index {
			found = found || e.URL == "validation.html" && e.Title == tr(lang, "validation.title") && strings.Contains(e.Text, rows[0].Name)
		}
		if !found {
			t.Errorf("course/%s/search.json has no entry for validation.html with its rows", lang)
		}
		for _, id := range fixtureIDs {
			lp := read("course/" + lang + "/" + id + ".html")
			link := `<a class="validation-link" href="validation.html">` + html.EscapeString(tr(lang, "numbers.validation")) + `</a>`
			if n, m := strings.Count(lp, link), strings.Count(lp, `<a class="where"`); n == 0 || n != m {
				t.Errorf("course/%s/%s.html: %d links to validation.html beside %d \"where does this number come from\" links, want one each", lang, id, n, m)
			}
		}
	}
}

// pageNumber is a published or engine value as the validation page
// writes it: whole and grouped by thousands from 1,000, else four
// significant digits.
func pageNumber(x float64) string {
	if math.Abs(x) < 1000 {
		return strconv.FormatFloat(x, 'g', 4, 64)
	}
	s := strconv.FormatFloat(math.Round(math.Abs(x)), 'f', 0, 64)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	if x < 0 {
		s = "-" + s
	}
	return s
}
