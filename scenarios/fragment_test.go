package scenarios

import (
	"maps"
	"strings"
	"testing"
)

func TestDefaultState(t *testing.T) {
	st := DefaultState()
	if st.Scenario != "ring-allreduce" || st.Step != 1 || st.Lang != "en" {
		t.Errorf("DefaultState() = %+v, want ring-allreduce, step 1, en", st)
	}
	if !st.Valid() {
		t.Errorf("DefaultState() is not Valid")
	}
	if got, want := EncodeFragment(st), "scenario=ring-allreduce&step=1&lang=en&gpus=8&bytes=268435456&link=nvlink4&algo=ring&nodes=1"; got != want {
		t.Errorf("EncodeFragment(DefaultState()) = %q, want %q", got, want)
	}
}

// with returns DefaultState with the given step, lang and knob values
// (name/value pairs).
func with(step int, lang string, kv ...string) State {
	st := DefaultState()
	st.Step, st.Lang = step, lang
	for i := 0; i+1 < len(kv); i += 2 {
		st.Config[kv[i]] = kv[i+1]
	}
	return st
}

func TestApplyFragment(t *testing.T) {
	long := "gpus=8&" + strings.Repeat("x", MaxFragment)
	tests := []struct {
		name string
		prev State
		frag string
		want State
		errs []string // English messages, in order
	}{
		{"empty", with(3, "zh"), "", with(3, "zh"), nil},
		{"just hash", with(3, "zh"), "#", with(3, "zh"), nil},
		{"full", DefaultState(), "#scenario=ring-allreduce&gpus=16&lang=zh&step=3",
			with(3, "zh", "gpus", "16"), nil},
		{"no hash", DefaultState(), "gpus=4&bytes=1GiB&link=ib-ndr&algo=star",
			with(1, "en", "gpus", "4", "bytes", "1073741824", "link", "ib-ndr", "algo", "star"), nil},
		{"same scenario keeps config", with(2, "en", "gpus", "32"), "scenario=ring-allreduce",
			with(2, "en", "gpus", "32"), nil},
		{"percent-encoded", DefaultState(), "bytes=256%20MiB&lang=%7A%68", with(1, "zh", "bytes", "268435456"), nil},
		{"plus is a space", DefaultState(), "bytes=1+GiB", with(1, "en", "bytes", "1073741824"), nil},
		{"last wins", DefaultState(), "gpus=4&gpus=abc&gpus=12", with(1, "en", "gpus", "12"), nil},
		{"empty parts", DefaultState(), "&&gpus=4&&", with(1, "en", "gpus", "4"), nil},
		{"lang case", DefaultState(), "lang=ZH", with(1, "zh"), nil},
		{"bad gpus", with(2, "zh", "gpus", "16"), "gpus=abc&step=4",
			with(4, "zh", "gpus", "16"), []string{"gpus: “abc” is not a whole number; allowed 2–64"}},
		{"gpus out of range", DefaultState(), "gpus=100000&lang=zh",
			with(1, "zh"), []string{"gpus: 100000 is out of range; allowed 2–64"}},
		{"bad bytes", DefaultState(), "bytes=lots",
			DefaultState(), []string{"bytes: “lots” is not a size; use a number of bytes or a suffix such as 256MB or 1GiB; allowed 1KiB–4GiB"}},
		{"bad link", DefaultState(), "link=pcie",
			DefaultState(), []string{"link: “pcie” is not one of nvlink4, ib-ndr"}},
		{"bad scenario", with(3, "en", "gpus", "4"), "scenario=nope&gpus=6",
			with(3, "en", "gpus", "6"), []string{"scenario: “nope” is not a lesson; available: " + strings.Join(IDs(), ", ")}},
		{"bad step", with(3, "en"), "step=7",
			with(3, "en"), []string{"step: “7” is not a step of this lesson; allowed 1–6"}},
		{"step zero", with(3, "en"), "step=0",
			with(3, "en"), []string{"step: “0” is not a step of this lesson; allowed 1–6"}},
		{"step not a number", with(3, "en"), "step=two",
			with(3, "en"), []string{"step: “two” is not a step of this lesson; allowed 1–6"}},
		{"bad lang", with(1, "zh"), "lang=fr",
			with(1, "zh"), []string{"lang: “fr” is not a language; allowed en, zh"}},
		{"unknown key", DefaultState(), "colour=red&gpus=4",
			with(1, "en", "gpus", "4"), []string{"colour: unknown setting; allowed: scenario, step, lang, zoom, hide, theme, motion, autoplay, load, origins, present, steps, gpu, gpus, bytes, link, algo, nodes"}},
		{"key without value", DefaultState(), "gpus",
			DefaultState(), []string{"gpus: “” is not a whole number; allowed 2–64"}},
		{"bad escape kept raw", DefaultState(), "gpus=%zz",
			DefaultState(), []string{"gpus: “%zz” is not a whole number; allowed 2–64"}},
		{"errors in order", DefaultState(), "step=9&zz=1&gpus=1",
			DefaultState(), []string{
				"step: “9” is not a step of this lesson; allowed 1–6",
				"zz: unknown setting; allowed: scenario, step, lang, zoom, hide, theme, motion, autoplay, load, origins, present, steps, gpu, gpus, bytes, link, algo, nodes",
				"gpus: 1 is out of range; allowed 2–64",
			}},
		{"too long", with(2, "zh"), long,
			with(2, "zh"), []string{"The link is too long (2055 characters; at most 2048); it was ignored"}},
		{"invalid prev is repaired", State{Scenario: "gone", Step: 99}, "gpus=4",
			with(1, "en", "gpus", "4"), nil},
		{"bad prev knob is repaired", with(2, "en", "gpus", "abc"), "",
			with(2, "en"), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, errs := ApplyFragment(tt.prev, tt.frag)
			if !stateEqual(got, tt.want) {
				t.Errorf("ApplyFragment(%+v, %q) = %+v, want %+v", tt.prev, tt.frag, got, tt.want)
			}
			var gotErrs []string
			for _, e := range errs {
				gotErrs = append(gotErrs, e.Error())
			}
			if strings.Join(gotErrs, "\n") != strings.Join(tt.errs, "\n") {
				t.Errorf("ApplyFragment(%q) errors =\n%q\nwant\n%q", tt.frag, gotErrs, tt.errs)
			}
		})
	}
}

func TestApplyFragmentErrorFields(t *testing.T) {
	_, errs := ApplyFragment(DefaultState(), "gpus=abc&lang=fr&step=x&scenario=y&zz=1")
	var got []string
	for _, e := range errs {
		got = append(got, e.Field+"="+e.Value+" "+e.Key)
		if len(e.Args) < 4 || e.Args[0] != "field" || e.Args[2] != "value" {
			t.Errorf("%s: Args = %q, want field and value first", e.Key, e.Args)
		}
	}
	want := []string{"scenario=y error.scenario", "gpus=abc error.int", "lang=fr error.lang", "step=x error.step", "zz=1 error.unknown_key"}
	if strings.Join(got, "; ") != strings.Join(want, "; ") {
		t.Errorf("error fields = %q, want %q", got, want)
	}
}

func TestApplyFragmentZH(t *testing.T) {
	_, errs := ApplyFragment(DefaultState(), "gpus=100000")
	if got, want := errs[0].Localize("zh"), "gpus：100000 超出范围；允许范围 2–64"; got != want {
		t.Errorf("Localize(zh) = %q, want %q", got, want)
	}
}

func TestEncodeFragment(t *testing.T) {
	tests := []struct {
		st   State
		want string
	}{
		{with(3, "zh", "gpus", "16", "algo", "star"), "scenario=ring-allreduce&step=3&lang=zh&gpus=16&bytes=268435456&link=nvlink4&algo=star&nodes=1"},
		{State{Scenario: "a b&c", Step: 2, Lang: "en", Config: Config{"x": "1"}}, "scenario=a+b%26c&step=2&lang=en"},
	}
	for _, tt := range tests {
		if got := EncodeFragment(tt.st); got != tt.want {
			t.Errorf("EncodeFragment(%+v) = %q, want %q", tt.st, got, tt.want)
		}
	}
}

func TestStateValid(t *testing.T) {
	tests := []struct {
		name string
		st   State
		want bool
	}{
		{"default", DefaultState(), true},
		{"step 6", with(6, "zh"), true},
		{"step 7", with(7, "en"), false},
		{"step 0", with(0, "en"), false},
		{"lang", with(1, "fr"), false},
		{"knob not canonical", with(1, "en", "bytes", "256MiB"), false},
		{"extra knob", with(1, "en", "colour", "red"), false},
		{"unknown scenario", State{Scenario: "x", Step: 1, Lang: "en"}, false},
	}
	for _, tt := range tests {
		if got := tt.st.Valid(); got != tt.want {
			t.Errorf("%s: Valid(%+v) = %v, want %v", tt.name, tt.st, got, tt.want)
		}
	}
	st := DefaultState()
	delete(st.Config, "gpus")
	if st.Valid() {
		t.Errorf("Valid() = true for a state missing knob gpus")
	}
}

func stateEqual(a, b State) bool {
	return a.Scenario == b.Scenario && a.Step == b.Step && a.Lang == b.Lang && maps.Equal(a.Config, b.Config) && a.Embed.Equal(b.Embed)
}

func FuzzApplyFragment(f *testing.F) {
	for _, seed := range []string{
		"", "#", "#scenario=ring-allreduce&gpus=8&lang=zh&step=3",
		"gpus=abc", "gpus=100000", "scenario=nope", "bytes=1.5GiB&link=IB-NDR&algo=star",
		"step=0&step=6", "%zz=%zz", "a=b=c&&=&", "lang=zh&lang=xx", "bytes=99999999999999999999TiB",
		strings.Repeat("gpus=8&", 300),
		"hide=knobs,TITLE,knobs&theme=dark&motion=reduced&autoplay=1&load=visible",
		"origins=https://a.example:443,http://localhost:8080/&origins=", "hide=everything&theme=blue&origins=ftp://x",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, frag string) {
		for _, prev := range []State{DefaultState(), with(4, "zh", "gpus", "64", "algo", "star")} {
			got, errs := ApplyFragment(prev, frag)
			if !got.Valid() {
				t.Fatalf("ApplyFragment(%+v, %q) = %+v, not a valid state", prev, frag, got)
			}
			for _, e := range errs {
				if e == nil || e.Key == "" || strings.HasPrefix(e.Error(), "⟦") {
					t.Fatalf("ApplyFragment(%q) gave a bad error %+v", frag, e)
				}
			}
			enc := EncodeFragment(got)
			back, errs := ApplyFragment(DefaultState(), enc)
			if len(errs) != 0 || !stateEqual(back, got) {
				t.Fatalf("round trip of %+v via %q = %+v, %v", got, enc, back, errs)
			}
		}
	})
}
