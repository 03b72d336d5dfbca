package scenarios

import (
	"math"
	"strconv"
	"strings"

	"github.com/gpuscope/gpuscope/engine/hw"
	"github.com/gpuscope/gpuscope/engine/model"
	"github.com/gpuscope/gpuscope/engine/sim"
	"github.com/gpuscope/gpuscope/engine/units"
	"github.com/gpuscope/gpuscope/scenarios/i18n"
)

// The words a lesson's narration and numbers table put around the
// engine's figures, in the reader's language: names of models and
// hardware through the catalogue (the engine's own names are the CLI's,
// in English), notes in brackets, large counts. Everything a Chinese
// reader sees is assembled from catalogue pieces, full-width punctuation
// included (GLOSSARY rules 2 and 3).

// paren is text with a note in brackets: "4 (registers)", "4（寄存器）".
func paren(lang, text, note string) string {
	return i18n.T(lang, "ui.paren", "text", text, "note", note)
}

// ModelName is how model m reads in lang (modelname.ID in the catalogue;
// the English names are the engine's).
func ModelName(lang string, m model.Transformer) string {
	if k := "modelname." + m.ID; i18n.Has(lang, k) {
		return i18n.T(lang, k)
	}
	return m.Name
}

// linkName is how link l reads in lang (linkname.ID).
func linkName(lang string, l hw.Link) string {
	if k := "linkname." + l.ID; i18n.Has(lang, k) {
		return i18n.T(lang, k)
	}
	return l.Name
}

// cpuName is how CPU c reads in lang (cpuname.ID).
func cpuName(lang string, c hw.CPU) string {
	if k := "cpuname." + c.ID; i18n.Has(lang, k) {
		return i18n.T(lang, k)
	}
	return c.Name
}

// ParamCount is a model's parameter count: "101B" in English (units.Params),
// as the CLI prints it; in Chinese with 亿 ("1012 亿").
func ParamCount(lang string, n float64) string {
	if lang == "zh" {
		if n >= 1e12 {
			return largeZH(n)
		}
		if n >= 1e9 {
			return strconv.FormatFloat(math.Round(n/1e8), 'f', 0, 64) + " 亿"
		}
		return largeZH(n)
	}
	return units.Params(n)
}

// largeCount is a large count for prose: "201M" in English; in Chinese
// with 万, 亿 and 万亿 to three significant digits ("2.01 亿",
// "4,000 万" reads "4000 万"), below 10,000 grouped as units.Count.
func largeCount(lang string, n float64) string {
	if lang == "zh" {
		return largeZH(n)
	}
	switch {
	case n >= 1e9:
		return trimZeros(strconv.FormatFloat(n/1e9, 'g', 3, 64)) + "B"
	case n >= 1e6:
		return trimZeros(strconv.FormatFloat(n/1e6, 'g', 3, 64)) + "M"
	}
	return units.Count(int64(math.Round(n)))
}

func largeZH(n float64) string {
	for _, u := range []struct {
		scale float64
		word  string
	}{{1e12, "万亿"}, {1e8, "亿"}, {1e4, "万"}} {
		if math.Abs(n) >= u.scale {
			v := n / u.scale
			s := strconv.FormatFloat(math.Round(v), 'f', 0, 64)
			if math.Abs(v) < 100 {
				s = trimZeros(strconv.FormatFloat(v, 'g', 3, 64))
			}
			return s + " " + u.word
		}
	}
	return units.Count(int64(math.Round(n)))
}

func trimZeros(s string) string {
	if strings.ContainsAny(s, "eE") || !strings.Contains(s, ".") {
		return s
	}
	s = strings.TrimRight(s, "0")
	return strings.TrimSuffix(s, ".")
}

// count is an integer for prose and tables, grouped by thousands as
// everywhere else ("16,384").
func count(n int) string { return units.Count(int64(n)) }

// plainNumber is a value as the number-formats lesson quotes it: six
// significant digits, whole numbers of five digits and more grouped by
// thousands ("70,144", "1.5", "0.1").
func plainNumber(v float64) string {
	if !math.IsInf(v, 0) && !math.IsNaN(v) && v == math.Trunc(v) && math.Abs(v) >= 1e4 && math.Abs(v) < 1e15 {
		return units.Count(int64(v))
	}
	return NumText(v)
}

// scientific is v to three significant digits as a power of ten for
// reading, "3.39 × 10³⁸", "7.8 × 10⁻¹⁶" (digits: significant digits).
func scientific(v float64, digits int) string {
	if v == 0 || math.IsInf(v, 0) || math.IsNaN(v) {
		return NumText(v)
	}
	e := int(math.Floor(math.Log10(math.Abs(v))))
	m := v / math.Pow(10, float64(e))
	if r, _ := strconv.ParseFloat(strconv.FormatFloat(m, 'g', digits, 64), 64); math.Abs(r) >= 10 {
		m, e = m/10, e+1
	}
	return trimZeros(strconv.FormatFloat(m, 'f', digits-1, 64)) + " × 10" + superscript(e)
}

func superscript(n int) string {
	const digits = "⁰¹²³⁴⁵⁶⁷⁸⁹"
	s := strconv.Itoa(n)
	var b strings.Builder
	for _, c := range s {
		if c == '-' {
			b.WriteString("⁻")
			continue
		}
		b.WriteString(string([]rune(digits)[c-'0']))
	}
	return b.String()
}

// TimeText is a time on a lesson's time line as the page's clock reads it
// in lang: "1.06 ms", "3.2 小时" (units.LocalDuration).
func TimeText(lang string, t sim.Time) string { return units.LocalDuration(lang, t.Seconds()) }

// tableNumber is a value in the number-formats table: as plainNumber, and
// very large or very small magnitudes as powers of ten to six significant
// digits ("3.40282 × 10³⁸", not 3.40282e+38).
func tableNumber(v float64) string {
	if a := math.Abs(v); a != 0 && !math.IsInf(v, 0) && !math.IsNaN(v) && (a >= 1e6 || a < 1e-3) {
		return scientific(v, 6)
	}
	return plainNumber(v)
}
