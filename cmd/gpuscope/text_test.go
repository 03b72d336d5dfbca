package main

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/gpuscope/gpuscope/engine/units"
)

// The calculators' text prints a count of bytes or FLOPs as the whole
// number (as the JSON has it) and then in the house units — never as
// 2.013e+08 (issue 36), and the JSON keeps numbers.
func TestTextCountsInHouseUnits(t *testing.T) {
	commands := [][]string{
		{"attention"}, {"attention", "--impl", "standard", "--seq", "131072", "--batch", "1024"},
		{"gemm", "--m", "8192", "--n", "8192", "--k", "8192"}, {"gemm", "--m", "64", "--n", "64", "--k", "64", "--kernel", "naive"},
		{"collective"}, {"collective", "--ranks", "64", "--topology", "fat-tree"},
		{"route"}, {"route", "--model", "deepseek-v3", "--ep", "64"},
		{"plan", "--model", "gpt3-175b", "--gpus", "512", "--tp", "8", "--pp", "8", "--kernels"},
		{"faults"}, {"quantize"}, {"roofline"},
	}
	sci := regexp.MustCompile(`\d\.?\d*e[+-]\d+`)
	// "  hbm_bytes    201326592  (201 MB)": the figure, then its reading.
	count := regexp.MustCompile(`^  ([a-z_]*(?:bytes|flops)[a-z_]*) +(\d+)  \(([^;,)]+)`)
	checked := 0
	for _, args := range commands {
		out, errOut, code := runCLI(args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		for _, line := range strings.Split(out, "\n") {
			if !strings.Contains(line, "bytes") && !strings.Contains(line, "flops") {
				continue
			}
			if s := sci.FindString(line); s != "" {
				t.Errorf("%v: %q prints %s", args, line, s)
			}
			m := count.FindStringSubmatch(line)
			if m == nil {
				continue
			}
			n, _ := strconv.ParseFloat(m[2], 64)
			want := units.Bytes(n)
			if strings.HasSuffix(m[1], "flops") {
				want = units.FLOP(n)
			}
			if m[3] != want && m[3] != units.BytesIEC(n) {
				t.Errorf("%v: %q reads %s as %q, want %q", args, line, m[2], m[3], want)
			}
			checked++
		}
	}
	if checked < 5 {
		t.Errorf("%d counts checked; the pattern no longer reads the output", checked)
	}
	// The JSON keeps numbers.
	m := jsonCLI(t, "attention", "--json")
	if _, ok := m["hbm_bytes"].(float64); !ok {
		t.Errorf("attention --json: hbm_bytes %v, want a number", m["hbm_bytes"])
	}
}
