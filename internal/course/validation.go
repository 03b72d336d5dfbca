package course

import (
	"fmt"
	"html"
	"html/template"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/gpuscope/gpuscope/engine/units"
	"github.com/gpuscope/gpuscope/engine/validate"
)

// The validation page (validation.html in each language) is the table of
// gpuscope validate, computed when the site is built by the same code
// (engine/validate): every published figure the engine is held to, the
// engine's value for the run's configuration, the error and tolerance,
// whether the row was seen while the engine was built or set aside before
// (unseen), and the means — over all rows, held and open alike, over the
// unseen rows, and over the held rows — the all-rows mean set against
// Calculon's published validation error.

// validationFile is the page's file name in course/LANG/.
const validationFile = "validation.html"

// Calculon (Isaev et al., "Calculon: a Methodology and Tool for
// High-Level Codesign of Systems and Software", SC '23) reports a mean
// end-to-end validation error of 3.65% for its performance model: the
// mark the issue sets gpuscope's mean against.
const (
	calculonMean = 0.0365
	calculonHref = "https://doi.org/10.1145/3581784.3607102"
	calculonCite = "Isaev et al., “Calculon: a Methodology and Tool for High-Level Codesign of Systems and Software”, SC ’23"
)

// goalError is the goal for every row: within 10% of its
// published figure.
const goalError = 0.10

// validationView is what the validation page's template gets.
type validationView struct {
	Intro        []string
	Split        template.HTML   // how the unseen rows were set aside
	Summary      []template.HTML // the counts; the means over all rows and the unseen; against Calculon; the held rows' mean and maximum; the goal
	CalculonHref string
	CalculonCite string
	Caveat       string
	Caption      string
	Columns      []string
	Rows         []validationRow
	CLINote      string
}

// validationRow is one row of the table, formatted.
type validationRow struct {
	Name, Source, Quantity                   string
	Published, Engine, Error, Tolerance      string
	Status, StatusLabel, Note, Config, Class string
	Seen, SeenLabel                          string // seen or unseen, and its label
	Command                                  bool   // Config is a gpuscope command line
}

// validationSummary is what the page's summary says, computed from the
// rows with validate.Summary.
type validationSummary struct {
	Rows, Held, Within, Open, Within10 int
	Mean, Max                          float64 // over the held rows
	All                                validate.Means
}

func summarize(rows []validate.Row) validationSummary {
	s := validationSummary{Rows: len(rows), All: validate.AllMeans(rows)}
	s.Mean, s.Max = validate.Summary(rows)
	for _, r := range rows {
		switch r.Status {
		case validate.Held:
			s.Held++
			if r.Within() {
				s.Within++
			}
		case validate.Open:
			s.Open++
		}
		if math.Abs(r.Error) <= goalError {
			s.Within10++
		}
	}
	return s
}

// validationNumber is a published or engine value: four significant
// digits below 1,000, whole numbers grouped by thousands from 1,000 up
// (units.Number's grouping).
func validationNumber(x float64) string {
	if math.Abs(x) >= 1000 {
		return units.Number(x)
	}
	s := strconv.FormatFloat(x, 'g', 4, 64)
	if strings.ContainsAny(s, "e") {
		// Below 0.001: no exponent on the page.
		s = strconv.FormatFloat(x, 'f', -1, 64)
	}
	return s
}

// signedPercent is an error as a signed percentage with one decimal:
// +3.7%, -0.3%.
func signedPercent(e float64) string { return fmt.Sprintf("%+.1f%%", 100*e) }

// percent2 is a mean or maximum error as a percentage with two decimals,
// to set against Calculon's 3.65%.
func percent2(e float64) string { return fmt.Sprintf("%.2f%%", 100*e) }

// signedPercent2 is a mean signed error with two decimals: +1.25%, −4.80%
// (the minus sign a true minus).
func signedPercent2(e float64) string {
	return strings.Replace(fmt.Sprintf("%+.2f%%", 100*e), "-", "−", 1)
}

// splitFile and splitHash are where the split is written down, and the
// start of the digest of the file of set-aside rows that SPLIT.md
// published before any mechanism was built.
const (
	splitFile = "engine/validate/testdata/issue37/"
	splitHash = "665dae10"
	splitSHA  = "SHA-256"
)

// splitText is the paragraph on how the unseen rows were set aside, its
// file, digest and hash name as code.
func splitText(lang string) template.HTML {
	s := html.EscapeString(tr(lang, "validation.intro.split"))
	for k, v := range map[string]string{"file": splitFile, "hash": splitHash, "sha": splitSHA} {
		s = strings.ReplaceAll(s, "{"+k+"}", "<code>"+html.EscapeString(v)+"</code>")
	}
	return template.HTML(s)
}

// plainPercent is a fraction as a percentage with no more decimals than
// it needs: 0.005 → 0.5%, 0.1 → 10%.
func plainPercent(t float64) string {
	return strconv.FormatFloat(math.Round(100*t*1e4)/1e4, 'f', -1, 64) + "%"
}

// tolerance is a row's tolerance: ±0.5%, ±10%.
func tolerance(t float64) string { return "±" + plainPercent(t) }

// trStrong is tr with its arguments in bold, as HTML.
func trStrong(lang, key string, args ...string) template.HTML {
	s := html.EscapeString(tr(lang, key))
	for i := 0; i+1 < len(args); i += 2 {
		s = strings.ReplaceAll(s, "{"+args[i]+"}", `<strong class="v-`+args[i]+`">`+html.EscapeString(args[i+1])+`</strong>`)
	}
	return template.HTML(s)
}

// validationPage builds the page's view in lang from the rows.
func validationPage(lang string, rows []validate.Row) *validationView {
	s := summarize(rows)
	itoa := strconv.Itoa
	compare := "validation.compare.below"
	if s.All.All.AbsError >= calculonMean {
		compare = "validation.compare.above"
	}
	v := &validationView{
		Intro: []string{tr(lang, "validation.intro.row"), tr(lang, "validation.intro.error"), tr(lang, "validation.intro.open")},
		Split: splitText(lang),
		Summary: []template.HTML{
			trStrong(lang, "validation.summary.rows", "rows", itoa(s.Rows), "held", itoa(s.Held), "within", itoa(s.Within), "open", itoa(s.Open), "unseen", itoa(s.All.Unseen.Rows)),
			trStrong(lang, "validation.summary.all", "rows", itoa(s.Rows), "meanall", percent2(s.All.All.AbsError), "signedall", signedPercent2(s.All.All.Error),
				"unseen", itoa(s.All.Unseen.Rows), "meanunseen", percent2(s.All.Unseen.AbsError), "signedunseen", signedPercent2(s.All.Unseen.Error)),
			trStrong(lang, compare, "calculon", percent2(calculonMean)),
			trStrong(lang, "validation.summary.mean", "mean", percent2(s.Mean), "max", percent2(s.Max)),
		},
		CalculonHref: calculonHref,
		CalculonCite: calculonCite,
		Caveat:       tr(lang, "validation.caveat"),
		Caption:      tr(lang, "validation.caption"),
		CLINote:      tr(lang, "validation.cli"),
	}
	v.Summary = append(v.Summary, trStrong(lang, "validation.goal", "goal", plainPercent(goalError), "within10", itoa(s.Within10), "rows", itoa(s.Rows)))
	for _, k := range []string{"name", "seen", "source", "quantity", "published", "engine", "error", "tolerance", "status", "config"} {
		v.Columns = append(v.Columns, tr(lang, "validation.col."+k))
	}
	for _, r := range rows {
		status := string(r.Status)
		if r.Status == validate.Held && !r.Within() {
			status = "outside"
		}
		seen := "seen"
		if r.Unseen {
			seen = "unseen"
		}
		v.Rows = append(v.Rows, validationRow{
			Seen: seen, SeenLabel: tr(lang, "validation.seen."+seen),
			Name: r.Name, Source: r.Source, Quantity: r.Quantity,
			Published: validationNumber(r.Published), Engine: validationNumber(r.Engine),
			Error: signedPercent(r.Error), Tolerance: tolerance(r.Tolerance),
			Status: status, StatusLabel: tr(lang, "validation.status."+status), Class: "vrow " + status,
			Note: r.Note, Config: r.Config, Command: strings.HasPrefix(r.Config, "gpuscope "),
		})
	}
	return v
}

// strongRe are the tags trStrong adds; codeTagRe the code tags of the split's
// paragraph.
var (
	strongRe  = regexp.MustCompile(`</?strong[^>]*>`)
	codeTagRe = regexp.MustCompile(`</?code>`)
)

// validationSearch is the page's entry in search.json.
func validationSearch(lang string, v *validationView) searchEntry {
	var text strings.Builder
	for _, p := range v.Intro {
		text.WriteString(p + "\n")
	}
	text.WriteString(html.UnescapeString(codeTagRe.ReplaceAllString(string(v.Split), "")) + "\n")
	for _, p := range v.Summary {
		text.WriteString(html.UnescapeString(strongRe.ReplaceAllString(string(p), "")) + "\n")
	}
	for _, r := range v.Rows {
		text.WriteString(r.Name + " " + r.Source + " " + r.Quantity + " " + r.Note + "\n")
	}
	return searchEntry{URL: validationFile, Title: tr(lang, "validation.title"), Headings: []string{v.Caption}, Text: collapse(text.String())}
}
