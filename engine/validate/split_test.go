package validate

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"slices"
	"sort"
	"testing"
)

// The digests SPLIT.md states: of rows.json as gathered, and of the
// heldout.json the split wrote before any mechanism was built.
const (
	rowsSHA256    = "0527e5ac4ecd46e847808f34b3fc8d158d75e72de90a9b81d45d9ffaa2a44a03"
	heldOutSHA256 = "665dae10ff4e7da0fdfc95a89a6e80551e8422a4bb64923405a1983f28cd4e3f"
)

// seenBeforeSplit are the 13 rows SPLIT.md's step 1 keeps in train:
// their numbers were quoted in issue 37 or in the project's reference
// before the split.
var seenBeforeSplit = []string{
	"megascale-megatron-175b-256", "megascale-megatron-175b-1024", "megascale-megatron-175b-3072", "megascale-megatron-175b-12288",
	"megascale-megatron-530b-2240", "megascale-megatron-530b-11200",
	"bloom-176b-384-a100",
	"dgxc-gpt3-175b-bf16-128", "dgxc-gpt3-175b-bf16-2048",
	"dgxc-llama31-70b-bf16-64", "dgxc-llama31-405b-bf16-576",
	"dgxc-nemotron4-340b-bf16-128", "dgxc-nemotron4-340b-bf16-2048",
}

func readRowsJSON(t *testing.T) ([]byte, []map[string]any) {
	t.Helper()
	data, err := os.ReadFile("testdata/issue37/rows.json")
	if err != nil {
		t.Fatal(err)
	}
	var rows []map[string]any
	if err := json.Unmarshal(data, &rows); err != nil {
		t.Fatal(err)
	}
	return data, rows
}

// topObjects are the texts of the top-level array's objects, as they
// stand in data (json.dump with indent=1: each from "{" to "\n }").
func topObjects(t *testing.T, data []byte) [][]byte {
	t.Helper()
	var objs [][]byte
	depth, start, inString, escaped := 0, 0, false, false
	for i, c := range data {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			if depth == 1 && c == '{' {
				start = i
			}
			depth++
		case c == '}' || c == ']':
			depth--
			if depth == 1 && c == '}' {
				objs = append(objs, data[start:i+1])
			}
		}
	}
	return objs
}

// SPLIT.md's procedure, again, from rows.json: the 13 rows already
// quoted stay seen; the others sorted by the SHA-256 hex digest of their
// names, the first ⌈63/3⌉ = 21 are held out. heldout.json is those rows
// as split.py wrote them (json.dump, indent 1, each row with "split":
// "heldout" and "seen_before_split": false added), and its SHA-256 is
// the one SPLIT.md published before any mechanism was built. HeldOut,
// and the rows gpuscope validate marks unseen, are exactly those.
func TestIssue37Split(t *testing.T) {
	data, rows := readRowsJSON(t)
	if sum := sha256.Sum256(data); hex.EncodeToString(sum[:]) != rowsSHA256 {
		t.Fatalf("testdata/issue37/rows.json: SHA-256 %x, SPLIT.md gives %s", sum, rowsSHA256)
	}
	objs := topObjects(t, data)
	if len(objs) != len(rows) || len(rows) != 63 {
		t.Fatalf("%d objects, %d rows; want 63", len(objs), len(rows))
	}
	digest := func(name string) string { s := sha256.Sum256([]byte(name)); return hex.EncodeToString(s[:]) }
	var eligible []string
	for _, r := range rows {
		if n := r["name"].(string); !slices.Contains(seenBeforeSplit, n) {
			eligible = append(eligible, n)
		}
	}
	if len(eligible) != 50 {
		t.Fatalf("%d rows not seen before the split, want 50", len(eligible))
	}
	sort.Slice(eligible, func(i, j int) bool { return digest(eligible[i]) < digest(eligible[j]) })
	k := (len(rows) + 2) / 3
	held := eligible[:k]
	var out bytes.Buffer
	out.WriteString("[\n")
	n := 0
	for i, r := range rows {
		if !slices.Contains(held, r["name"].(string)) {
			continue
		}
		if n > 0 {
			out.WriteString(",\n")
		}
		n++
		obj := objs[i]
		body, ok := bytes.CutSuffix(obj, []byte("\n }"))
		if !ok {
			t.Fatalf("row %d does not end as json.dump's indent=1 writes it", i)
		}
		out.WriteString(" ")
		out.Write(body)
		out.WriteString(",\n  \"split\": \"heldout\",\n  \"seen_before_split\": false\n }")
	}
	out.WriteString("\n]\n")
	if sum := sha256.Sum256(out.Bytes()); hex.EncodeToString(sum[:]) != heldOutSHA256 {
		t.Fatalf("the held-out rows derived from rows.json hash to %x, not SPLIT.md's %s", sum, heldOutSHA256)
	}
	want := slices.Clone(held)
	got := slices.Clone(HeldOut)
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("HeldOut %v; the split holds out %v", got, want)
	}
	vrows, err := Rows()
	if err != nil {
		t.Fatal(err)
	}
	var unseen []string
	for _, r := range vrows {
		if r.Unseen {
			unseen = append(unseen, r.Name)
		}
	}
	slices.Sort(unseen)
	if !slices.Equal(unseen, want) {
		t.Errorf("rows marked unseen %v, want the held-out %v", unseen, want)
	}
}
