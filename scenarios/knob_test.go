package scenarios

import (
	"maps"
	"slices"
	"testing"
)

var (
	gpusKnob  = Knob{Name: "gpus", Kind: KnobInt, Min: 2, Max: 64, Default: "8", Label: "knob.gpus"}
	bytesKnob = Knob{Name: "bytes", Kind: KnobBytes, Min: 1 << 10, Max: 4 << 30, Default: "268435456", Label: "knob.bytes"}
	linkKnob  = Knob{Name: "link", Kind: KnobEnum, Values: []string{"nvlink4", "ib-ndr"}, Default: "nvlink4", Label: "knob.link"}
)

func TestKnobParse(t *testing.T) {
	tests := []struct {
		knob    Knob
		in      string
		want    string
		wantErr string // the English message, "" for none
	}{
		{gpusKnob, "8", "8", ""},
		{gpusKnob, " 64 ", "64", ""},
		{gpusKnob, "+2", "2", ""},
		{gpusKnob, "008", "8", ""},
		{gpusKnob, "abc", "", "gpus: “abc” is not a whole number; allowed 2–64"},
		{gpusKnob, "", "", "gpus: “” is not a whole number; allowed 2–64"},
		{gpusKnob, "8.5", "", "gpus: “8.5” is not a whole number; allowed 2–64"},
		{gpusKnob, "100000", "", "gpus: 100000 is out of range; allowed 2–64"},
		{gpusKnob, "1", "", "gpus: 1 is out of range; allowed 2–64"},
		{gpusKnob, "-3", "", "gpus: -3 is out of range; allowed 2–64"},
		{gpusKnob, "99999999999999999999", "", "gpus: 99999999999999999999 is out of range; allowed 2–64"},

		{bytesKnob, "268435456", "268435456", ""},
		{bytesKnob, "256MiB", "268435456", ""},
		{bytesKnob, "256mib", "268435456", ""},
		{bytesKnob, "256 MiB", "268435456", ""},
		{bytesKnob, "256MB", "256000000", ""},
		{bytesKnob, "1KiB", "1024", ""},
		{bytesKnob, "1kb", "", "bytes: 1kb is out of range; allowed 1KiB–4GiB"},
		{bytesKnob, "4GiB", "4294967296", ""},
		{bytesKnob, "1GB", "1000000000", ""},
		{bytesKnob, "1.5GiB", "1610612736", ""},
		{bytesKnob, "0.5MB", "500000", ""},
		{bytesKnob, "2048B", "2048", ""},
		{bytesKnob, "1.5", "", "bytes: “1.5” is not a size; use a number of bytes or a suffix such as 256MB or 1GiB; allowed 1KiB–4GiB"},
		{bytesKnob, "256XB", "", "bytes: “256XB” is not a size; use a number of bytes or a suffix such as 256MB or 1GiB; allowed 1KiB–4GiB"},
		{bytesKnob, "MiB", "", "bytes: “MiB” is not a size; use a number of bytes or a suffix such as 256MB or 1GiB; allowed 1KiB–4GiB"},
		{bytesKnob, "1.MiB", "", "bytes: “1.MiB” is not a size; use a number of bytes or a suffix such as 256MB or 1GiB; allowed 1KiB–4GiB"},
		{bytesKnob, "-1KiB", "", "bytes: “-1KiB” is not a size; use a number of bytes or a suffix such as 256MB or 1GiB; allowed 1KiB–4GiB"},
		{bytesKnob, "5GiB", "", "bytes: 5GiB is out of range; allowed 1KiB–4GiB"},
		{bytesKnob, "99999999999TiB", "", "bytes: 99999999999TiB is out of range; allowed 1KiB–4GiB"},
		{bytesKnob, "99999999999999999999999", "", "bytes: 99999999999999999999999 is out of range; allowed 1KiB–4GiB"},

		{linkKnob, "nvlink4", "nvlink4", ""},
		{linkKnob, "IB-NDR", "ib-ndr", ""},
		{linkKnob, "pcie", "", "link: “pcie” is not one of nvlink4, ib-ndr"},
	}
	for _, tt := range tests {
		got, err := tt.knob.Parse(tt.in)
		gotErr := ""
		if err != nil {
			gotErr = err.Error()
			if err.Field != tt.knob.Name || err.Value != tt.in {
				t.Errorf("%s.Parse(%q) error Field, Value = %q, %q; want %q, %q", tt.knob.Name, tt.in, err.Field, err.Value, tt.knob.Name, tt.in)
			}
		}
		if got != tt.want || gotErr != tt.wantErr {
			t.Errorf("%s.Parse(%q) = %q, %q; want %q, %q", tt.knob.Name, tt.in, got, gotErr, tt.want, tt.wantErr)
		}
	}
}

func TestInputErrorLocalize(t *testing.T) {
	_, err := gpusKnob.Parse("abc")
	if got, want := err.Localize("zh"), "gpus：“abc”不是整数；允许范围 2–64"; got != want {
		t.Errorf("Localize(zh) = %q, want %q", got, want)
	}
	if got, want := err.Localize("xx"), err.Error(); got != want {
		t.Errorf("Localize(xx) = %q, want the English %q", got, want)
	}
	long := string(make([]byte, 100))
	_, err = gpusKnob.Parse(long)
	if got := []rune(err.Args[3]); len(got) != maxShown {
		t.Errorf("a 100-byte value is shown as %d runes, want %d", len(got), maxShown)
	}
	if err.Value != long {
		t.Errorf("InputError.Value was shortened; want the value as given")
	}
}

func TestFormatBytes(t *testing.T) {
	tests := []struct {
		in   int64
		want string
	}{
		{0, "0"}, {1, "1"}, {1000, "1KB"}, {1024, "1KiB"}, {1500, "1500"}, {2048, "2KiB"},
		{268435456, "256MiB"}, {256000000, "256MB"}, {1 << 30, "1GiB"}, {4 << 30, "4GiB"},
		{1e9, "1GB"}, {1 << 40, "1TiB"}, {1610612736, "1536MiB"}, {-5, "-5"},
	}
	for _, tt := range tests {
		if got := FormatBytes(tt.in); got != tt.want {
			t.Errorf("FormatBytes(%d) = %q, want %q", tt.in, got, tt.want)
		}
		if tt.in > 0 {
			n, ok, overflow := parseBytes(FormatBytes(tt.in))
			if n != tt.in || !ok || overflow {
				t.Errorf("parseBytes(FormatBytes(%d)) = %d, %v, %v; want the input back", tt.in, n, ok, overflow)
			}
		}
	}
}

func TestKnobKindString(t *testing.T) {
	for k, want := range map[KnobKind]string{KnobInt: "int", KnobBytes: "bytes", KnobEnum: "enum", 7: "KnobKind(7)"} {
		if got := k.String(); got != want {
			t.Errorf("KnobKind(%d).String() = %q, want %q", int(k), got, want)
		}
	}
}

func TestConfigInt(t *testing.T) {
	c := Config{"gpus": "8", "bytes": "268435456", "link": "nvlink4"}
	tests := []struct {
		name string
		want int64
	}{{"gpus", 8}, {"bytes", 268435456}, {"link", 0}, {"missing", 0}}
	for _, tt := range tests {
		if got := c.Int(tt.name); got != tt.want {
			t.Errorf("Config.Int(%q) = %d, want %d", tt.name, got, tt.want)
		}
	}
	if got := Config(nil).Int("gpus"); got != 0 {
		t.Errorf("nil Config.Int(gpus) = %d, want 0", got)
	}
}

func testScenario(t *testing.T) *Scenario {
	t.Helper()
	s, err := Load("t.scn", []byte(good))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestScenarioSet(t *testing.T) {
	s := testScenario(t)
	base := s.Defaults()
	if want := (Config{"gpus": "8", "bytes": "268435456", "link": "nvlink4"}); !maps.Equal(base, want) {
		t.Fatalf("Defaults() = %v, want %v", base, want)
	}
	tests := []struct {
		name, text string
		want       Config
		wantErr    string
	}{
		{"gpus", "16", Config{"gpus": "16", "bytes": "268435456", "link": "nvlink4"}, ""},
		{"bytes", "1GiB", Config{"gpus": "8", "bytes": "1073741824", "link": "nvlink4"}, ""},
		{"gpus", "abc", base, "gpus: “abc” is not a whole number; allowed 2–64"},
		{"colour", "red", base, "colour: unknown setting; allowed: gpus, bytes, link"},
	}
	for _, tt := range tests {
		got, err := s.Set(base, tt.name, tt.text)
		gotErr := ""
		if err != nil {
			gotErr = err.Error()
		}
		if !maps.Equal(got, tt.want) || gotErr != tt.wantErr {
			t.Errorf("Set(%s, %q) = %v, %q; want %v, %q", tt.name, tt.text, got, gotErr, tt.want, tt.wantErr)
		}
		if !maps.Equal(base, s.Defaults()) {
			t.Fatalf("Set(%s, %q) changed its input to %v", tt.name, tt.text, base)
		}
	}
}

func TestStepConfig(t *testing.T) {
	s := testScenario(t)
	base := s.Defaults()
	tests := []struct {
		step int
		want Config
	}{
		{1, Config{"gpus": "16", "bytes": "268435456", "link": "ib-ndr"}},
		{2, base},
		{0, base},
		{3, base},
	}
	for _, tt := range tests {
		if got := s.StepConfig(base, tt.step); !maps.Equal(got, tt.want) {
			t.Errorf("StepConfig(defaults, %d) = %v, want %v", tt.step, got, tt.want)
		}
	}
	if !maps.Equal(base, s.Defaults()) {
		t.Errorf("StepConfig changed its input to %v", base)
	}
	if got := s.StepConfig(nil, 2); got == nil || len(got) != 0 {
		t.Errorf("StepConfig(nil, 2) = %v, want an empty non-nil Config", got)
	}
}

func TestKnobValueLabel(t *testing.T) {
	got := []string{}
	for _, v := range linkKnob.Values {
		got = append(got, linkKnob.ValueLabel(v))
	}
	if want := []string{"link.nvlink4", "link.ib-ndr"}; !slices.Equal(got, want) {
		t.Errorf("ValueLabel = %v, want %v", got, want)
	}
}

func TestFloatKnob(t *testing.T) {
	k := Knob{Name: "value", Kind: KnobFloat, FMin: -1e6, FMax: 1e6}
	for in, want := range map[string]string{"70000": "70000", " 1e-8 ": "1e-08", "-0.5": "-0.5", "65504.0": "65504"} {
		if got, err := k.Parse(in); err != nil || got != want {
			t.Errorf("Parse(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for in, key := range map[string]string{"abc": "error.float", "nan": "error.float", "1e7": "error.range", "inf": "error.range", "": "error.float"} {
		if _, err := k.Parse(in); err == nil || err.Key != key || err.Field != "value" {
			t.Errorf("Parse(%q) error %v, want %s on value", in, err, key)
		}
	}
	if got := (Config{"value": "2.5"}).Float("value"); got != 2.5 {
		t.Errorf("Config.Float = %g", got)
	}
}
