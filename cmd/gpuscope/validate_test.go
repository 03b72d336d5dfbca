package main

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/gpuscope/gpuscope/engine/validate"
)

// gpuscope validate --json: the fields, every row's error
// (engine − published) ÷ published, the mean and the maximum over the
// held rows; the text table names every row and says which are open.
func TestValidateJSON(t *testing.T) {
	out, errOut, code := runCLI("validate", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal([]byte(out), &raw); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"rows", "mean_abs_error", "max_abs_error", "mean_abs_error_all", "mean_error_all", "mean_abs_error_seen", "mean_error_seen", "mean_abs_error_unseen", "mean_error_unseen", "unseen_rows"} {
		if _, ok := raw[k]; !ok {
			t.Errorf("no %q in %s", k, out)
		}
	}
	var rows []map[string]any
	if err := json.Unmarshal(raw["rows"], &rows); err != nil || len(rows) < 20 {
		t.Fatalf("%d rows: %v", len(rows), err)
	}
	var mean, maxAbs float64
	json.Unmarshal(raw["mean_abs_error"], &mean)
	json.Unmarshal(raw["max_abs_error"], &maxAbs)
	sum, n, worst := 0.0, 0, 0.0
	// Over all rows, the seen and the unseen: |error| and signed.
	var sums [3][2]float64
	var counts [3]int
	for _, r := range rows {
		for _, k := range []string{"name", "source", "quantity", "published", "engine", "error", "tolerance", "config", "status", "unseen"} {
			if _, ok := r[k]; !ok {
				t.Errorf("row %v: no %q", r["name"], k)
			}
		}
		pub, eng, e := r["published"].(float64), r["engine"].(float64), r["error"].(float64)
		for i, in := range []bool{true, r["unseen"] == false, r["unseen"] == true} {
			if in {
				sums[i][0] += math.Abs(e)
				sums[i][1] += e
				counts[i]++
			}
		}
		if want := (eng - pub) / pub; math.Abs(e-want) > 1e-12*math.Abs(want)+1e-15 {
			t.Errorf("%v: error %g, want (engine − published) / published = %g", r["name"], e, want)
		}
		switch r["status"] {
		case "held":
			sum, n, worst = sum+math.Abs(e), n+1, max(worst, math.Abs(e))
			if math.Abs(e) > r["tolerance"].(float64) {
				t.Errorf("%v: error %g outside its tolerance %g", r["name"], e, r["tolerance"])
			}
		case "open":
			if r["note"] == nil {
				t.Errorf("%v: open without a note", r["name"])
			}
		default:
			t.Errorf("%v: status %v", r["name"], r["status"])
		}
	}
	if math.Abs(mean-sum/float64(n)) > 1e-12 || maxAbs != worst {
		t.Errorf("mean %g, max %g; the held rows give %g and %g", mean, maxAbs, sum/float64(n), worst)
	}
	for i, k := range []string{"all", "seen", "unseen"} {
		var abs, signed float64
		json.Unmarshal(raw["mean_abs_error_"+k], &abs)
		json.Unmarshal(raw["mean_error_"+k], &signed)
		if counts[i] == 0 || math.Abs(abs-sums[i][0]/float64(counts[i])) > 1e-12 || math.Abs(signed-sums[i][1]/float64(counts[i])) > 1e-12 {
			t.Errorf("mean_abs_error_%s %g, mean_error_%s %g; its %d rows give %g and %g", k, abs, k, signed, counts[i], sums[i][0]/float64(counts[i]), sums[i][1]/float64(counts[i]))
		}
	}
	var unseen int
	json.Unmarshal(raw["unseen_rows"], &unseen)
	if unseen != counts[2] || unseen != 21 {
		t.Errorf("unseen_rows %d; %d rows say unseen, issue 37's split set aside 21", unseen, counts[2])
	}
	text, _, code := runCLI("validate")
	if code != 0 {
		t.Fatalf("validate: exit %d", code)
	}
	for _, r := range rows {
		if !strings.Contains(text, r["name"].(string)) {
			t.Errorf("the text output has no row %v", r["name"])
		}
	}
	if !strings.Contains(text, "OPEN") || !strings.Contains(text, "mean |error|") || !strings.Contains(text, "unseen") || !strings.Contains(text, fmt.Sprintf("all %d rows,", len(rows))) {
		t.Errorf("the text output does not mark open rows or give the mean:\n%s", text)
	}
	if _, errOut, code := runCLI("validate", "extra"); code != 2 || !strings.Contains(errOut, "unexpected argument") {
		t.Errorf("validate extra: exit %d, %q", code, errOut)
	}
}

// A row's engine value is what its command line prints: each row whose
// configuration is a gpuscope command, run with --json, gives the row's
// engine value in the field the row names; every gpuscope plan row's
// command runs.
func TestValidateRowsEndToEnd(t *testing.T) {
	rows, err := validate.Rows()
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, r := range rows {
		if !strings.HasPrefix(r.Config, "gpuscope ") {
			continue
		}
		args := append(strings.Fields(strings.TrimPrefix(r.Config, "gpuscope ")), "--json")
		out, errOut, code := runCLI(args...)
		if code != 0 {
			t.Errorf("%s: %s: exit %d, %s", r.Name, r.Config, code, errOut)
			continue
		}
		if r.PlanField == "" {
			continue
		}
		var v any
		if err := json.Unmarshal([]byte(out), &v); err != nil {
			t.Fatal(err)
		}
		for _, k := range strings.Split(r.PlanField, ".") {
			if i, err := strconv.Atoi(k); err == nil { // an index into a list: "time_per_stage.1.f_and_b_s"
				if l, ok := v.([]any); ok && i < len(l) {
					v = l[i]
					continue
				}
			}
			m, _ := v.(map[string]any)
			v = m[k]
		}
		got, ok := v.(float64)
		if !ok || math.Abs(got-r.Engine) > 1e-12*math.Abs(r.Engine) {
			t.Errorf("%s: %s prints %s %v; the row's engine value is %g", r.Name, r.Config, r.PlanField, v, r.Engine)
		}
		checked++
	}
	if checked < 15 {
		t.Errorf("%d rows checked end to end", checked)
	}
}
