package scenarios

import (
	"flag"
	"fmt"
	"github.com/gpuscope/gpuscope/engine/model"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/gpuscope/gpuscope/engine/sim"
	"github.com/gpuscope/gpuscope/internal/textcheck"
	"github.com/gpuscope/gpuscope/scenarios/i18n"
)

// Every string a reader sees, in each language, follows the glossary's
// rules (issue 22; ../shared/GLOSSARY.md, checked by internal/textcheck):
// every lesson's every step, under its defaults and under each value of
// the knobs that change names (models, GPUs, links, formats, schedules …),
// with its narration title and text, its numbers table (columns, labels,
// cells, sources), the screen reader's description before and after the
// step's question is answered, the question itself and its answer as the
// page shows it, the live line and the clock, the knobs' labels and
// values, and the errors of bad fragments and commands.
// Chinese text fails on English words, on half-width punctuation beside
// Chinese characters and on terms written another way; English text fails
// on Chinese characters.

var dumpWords = flag.Bool("words", false, "list the Latin words the Chinese text spells (for reviewing AllowedLatin)")

// textSink collects the texts to check, each with where it comes from.
type textSink struct {
	lang  string
	seen  map[string]bool
	texts []placed
}

type placed struct {
	where, text string
	code        []string // tokens the text may spell because a reader types them
	cell        bool     // a numbers table's cell, built in code
}

func (s *textSink) add(where, text string, code ...string) {
	if text == "" || s.seen[text] {
		return
	}
	s.seen[text] = true
	s.texts = append(s.texts, placed{where: where, text: text, code: code})
}

// addCell adds a Chinese table cell for the check of code-built cells
// (textcheck.ChineseCell), once for each text.
func (s *textSink) addCell(where, text string) {
	k := "\x00cell " + text
	if text == "" || s.seen[k] {
		return
	}
	s.seen[k] = true
	s.texts = append(s.texts, placed{where: where, text: text, cell: true})
}

// codeCell is a table row whose cells are a command line to type, not
// prose (the course shows them as code too).
func codeCell(r TableRow) bool { return r.Key == "command" }

// variantConfigs are the configurations a lesson is read under: its
// defaults, and each other value of each enum knob, one at a time.
func variantConfigs(s *Scenario) []Config {
	out := []Config{s.Defaults()}
	for _, k := range s.Knobs {
		if k.Kind != KnobEnum {
			continue
		}
		for _, v := range k.Values {
			if v == k.Default || NumericValue(v) && !longVariants {
				continue
			}
			c := s.Defaults()
			c[k.Name] = v
			out = append(out, c)
		}
	}
	return out
}

// longVariants also reads every numeric enum value (GPU counts …), which
// the short test mode skips.
var longVariants = false

// readLesson adds everything a reader of lesson s under cfg sees in lang.
// It reports the engine's refusal of cfg, if any, as an error text.
func readLesson(t *testing.T, s *Scenario, cfg Config, sinks map[string]*textSink) {
	t.Helper()
	st := State{Scenario: s.ID, Step: 1, Lang: "en", Config: cfg}
	p, errs, err := NewPlayerAt(EncodeFragment(st))
	if err != nil {
		t.Fatalf("%s %v: %v", s.ID, cfg, err)
	}
	where := func(lang, what string, step int) string {
		return fmt.Sprintf("%s %s step %d %s (%s)", s.ID, lang, step, what, configDiff(s, cfg))
	}
	for _, lang := range i18n.Langs() {
		sink := sinks[lang]
		for _, e := range errs {
			sink.add(where(lang, "engine refusal", 0), e.Localize(lang), errorCode(s)...)
		}
	}
	if len(errs) > 0 {
		return // the player fell back on the defaults, read on their own
	}
	for n := 1; n <= len(p.Lesson().Steps); n++ {
		p.Goto(n)
		for _, lang := range i18n.Langs() {
			if e := p.Set("lang", lang); e != nil {
				t.Fatal(e)
			}
			sink := sinks[lang]
			title, text := p.Narration()
			sink.add(where(lang, "title", n), title)
			sink.add(where(lang, "text", n), text)
			tb := p.Lesson().Table(n, lang)
			for _, c := range tb.Columns {
				sink.add(where(lang, "column", n), c)
			}
			for _, r := range tb.Rows {
				sink.add(where(lang, "row "+r.Key+" label", n), r.Label)
				if r.Source != "" {
					sink.add(where(lang, "row "+r.Key+" source", n), i18n.T(lang, "ui.source_line", "source", r.Source))
				}
				if codeCell(r) {
					continue
				}
				for _, c := range r.Cells {
					sink.add(where(lang, "row "+r.Key+" cell", n), c)
					if lang == "zh" {
						sink.addCell(where(lang, "row "+r.Key+" cell", n), c)
					}
				}
			}
			sr := p.StepRun()
			for _, at := range []sim.Time{sr.From, sr.To} {
				sink.add(where(lang, "live", n), p.Lesson().Live(n, at, lang))
			}
			sink.add(where(lang, "clock", n), i18n.T(lang, "ui.time", "t", TimeText(lang, sr.To)+" / "+TimeText(lang, p.Run().End())))
			sink.add(where(lang, "description", n), p.Description())
			if q, ok := p.Question(); ok {
				sink.add(where(lang, "question", n), q.Prompt)
				for _, c := range q.Choices {
					sink.add(where(lang, "choice", n), c)
				}
			}
		}
		if q, ok := p.Question(); ok {
			p.Answer((q.Answer + 1) % len(q.Choices)) // a wrong answer: the reveal still explains
			for _, lang := range i18n.Langs() {
				p.Set("lang", lang)
				q, _ := p.Question()
				sinks[lang].add(where(lang, "reveal", n), i18n.T(lang, "ui.predict_verdict", "verdict", i18n.T(lang, "ui.predict_wrong"), "reveal", q.Reveal))
				sinks[lang].add(where(lang, "description (answered)", n), p.Description())
			}
		}
	}
}

// configDiff names the knobs cfg sets away from s's defaults.
func configDiff(s *Scenario, cfg Config) string {
	var out []string
	for _, k := range s.Knobs {
		if cfg[k.Name] != k.Default {
			out = append(out, k.Name+"="+cfg[k.Name])
		}
	}
	if len(out) == 0 {
		return "defaults"
	}
	return strings.Join(out, " ")
}

// errorCode are the tokens an error message may spell as a reader types
// them: the fragment's keys and values, the lessons' ids, the embed's
// words.
func errorCode(s *Scenario) []string {
	code := slices.Clone(reserved)
	code = append(code, IDs()...)
	code = append(code, HideParts...)
	code = append(code, Themes...)
	code = append(code, Motions...)
	code = append(code, Loads...)
	code = append(code, "auto", "en", "zh", "https", "http", "example.com", "https://example.com", "play", "pause",
		"step", "goto", "set", "answer", "hf-config", "hf_config", "config", "choice", "delta", "time_s", "type", "command",
		"bogus", "nosuch", "nosuchkey", "fr", "abc", "ftp", "x",
		"silu", "swish", "gelu") // config.json's words
	code = append(code, strings.Fields("model_type architectures num_hidden_layers hidden_size num_attention_heads num_key_value_heads "+
		"intermediate_size vocab_size max_position_embeddings tie_word_embeddings hidden_act n_layer n_embd n_head n_positions n_inner "+
		"first_k_dense_replace false topk_method scoring_func greedy group_limited_greedy noaux_tc softmax sigmoid")...)
	code = append(code, model.UnmodelledKeys()...)
	code = append(code, model.HFModelTypes()...)                                                  // the architectures a config.json is read as
	code = append(code, "interleave_moe_layer_step", "null", "bytes")                             // Llama 4's MoE layers; a file's size
	code = append(code, "DBRX", "MPT", "Gemma", "DeepSeek", "gpt-oss", "Mamba", "SwiGLU", "sink") // the architectures a config.json is refused for
	code = append(code, "plan", "search")                                                         // gpuscope plan (--search), the command that plans what a lesson cannot
	code = append(code, ZoomLevels...)                                                            // the zoom's levels, as the fragment writes them
	for _, sc := range All() {
		for _, k := range sc.Knobs {
			code = append(code, k.Name)
			code = append(code, k.Values...)
		}
	}
	return code
}

// badInputs are the fragments and commands a reader may get wrong on a
// lesson: each knob out of range or misspelt, an unknown key, a bad step,
// language, lesson, embed option, speed and command.
func badInputs(s *Scenario) (frags []string, commands []string) {
	for _, k := range s.Knobs {
		switch k.Kind {
		case KnobInt:
			frags = append(frags, k.Name+"="+strconv.FormatInt(k.Max+1, 10), k.Name+"=abc")
		case KnobBytes:
			frags = append(frags, k.Name+"="+strconv.FormatInt(k.Max+1, 10), k.Name+"=abc")
		case KnobFloat:
			frags = append(frags, k.Name+"=1e300", k.Name+"=abc")
		case KnobEnum:
			frags = append(frags, k.Name+"=bogus")
		}
	}
	frags = append(frags, "nosuchkey=1", "step=99", "lang=fr", "scenario=nosuch", "hide=bogus", "theme=bogus",
		"origins=ftp://x", "autoplay=bogus", "#"+strings.Repeat("a", MaxFragment+1))
	commands = []string{`{"type":"bogus"}`, `not json`, `{"type":"goto","step":"x"}`, `{"type":"goto","time_s":-1}`,
		`{"type":"step","delta":1.5}`, `{"type":"set"}`, `{"type":"answer","choice":99}`, `{"type":"set","speed":3}`,
		`{"type":"hf-config","json":"{"}`, `{"type":"answer","choice":"x"}`}
	return frags, commands
}

func readErrors(t *testing.T, s *Scenario, sinks map[string]*textSink) {
	t.Helper()
	frags, commands := badInputs(s)
	p, _, err := NewPlayerAt("scenario=" + s.ID)
	if err != nil {
		t.Fatal(err)
	}
	code := errorCode(s)
	typed := func(in string) []string { return append(slices.Clone(code), tokens(in)...) }
	for _, f := range frags {
		p.ApplyFragment(f)
		if len(p.Errors()) == 0 {
			t.Errorf("%s: fragment %q gave no error", s.ID, f)
		}
		for _, lang := range i18n.Langs() {
			sinks[lang].add(fmt.Sprintf("%s %s error for %.40q", s.ID, lang, f), p.ErrorText(lang), typed(f)...)
		}
		p.ClearErrors()
	}
	for _, c := range commands {
		e := p.Command([]byte(c))
		if e == nil {
			t.Errorf("%s: command %s gave no error", s.ID, c)
			continue
		}
		for _, lang := range i18n.Langs() {
			sinks[lang].add(fmt.Sprintf("%s %s error for %s", s.ID, lang, c), e.Localize(lang), typed(c)...)
		}
	}
}

func check(t *testing.T, sinks map[string]*textSink) {
	t.Helper()
	words := map[string]int{}
	failures := 0
	for _, lang := range i18n.Langs() {
		for _, pl := range sinks[lang].texts {
			var probs []string
			if pl.cell {
				probs = textcheck.ChineseCell(pl.text)
			} else if lang == "zh" && pl.code != nil {
				probs = textcheck.ChineseInput(pl.text, pl.code...)
			} else if lang == "zh" {
				probs = textcheck.Chinese(pl.text)
			}
			if pl.cell {
				// checked above, and as prose when it was added
			} else if lang == "zh" {
				for w, n := range textcheck.Words(pl.text) {
					words[w] += n
				}
			} else {
				probs = textcheck.English(pl.text)
			}
			for _, pr := range probs {
				failures++
				if failures <= 400 {
					t.Errorf("%s: %s", pl.where, pr)
				}
			}
		}
	}
	if failures > 400 {
		t.Errorf("… and %d more", failures-400)
	}
	if *dumpWords {
		keys := textcheck.SortedKeys(words)
		sort.SliceStable(keys, func(i, j int) bool { return words[keys[i]] > words[keys[j]] })
		for _, k := range keys {
			t.Logf("%6d %s", words[k], k)
		}
	}
}

func newSinks() map[string]*textSink {
	sinks := map[string]*textSink{}
	for _, lang := range i18n.Langs() {
		sinks[lang] = &textSink{lang: lang, seen: map[string]bool{}}
	}
	return sinks
}

// Every text a lesson shows — narration, canvas labels, knobs, errors —
// follows the language rules in both languages, at its default and at
// variant settings.
//
// Not under WebAssembly: make test runs the engine's and the lessons'
// tests under Node.js too, to show the same numbers come out there
// (TestLessonCheckpointsGolden compares every step's checkpoints, the
// engine's golden traces its events); the words around them come from
// the same catalogue and formatting code, and the rules are string
// functions, so a run under Node.js would repeat the native verdict at
// about 30 s of CPU.
func TestLanguageRules(t *testing.T) {
	if runtime.GOOS == "js" {
		t.Skip("checked natively; under Node.js the lessons' numbers are compared by TestLessonCheckpointsGolden")
	}
	longVariants = !testing.Short()
	for _, s := range All() {
		t.Run(s.ID, func(t *testing.T) {
			sinks := newSinks()
			for _, cfg := range variantConfigs(s) {
				readLesson(t, s, cfg, sinks)
			}
			readErrors(t, s, sinks)
			for _, lang := range i18n.Langs() {
				for _, k := range s.Knobs {
					sinks[lang].add(s.ID+" knob "+k.Name, i18n.T(lang, k.Label))
					for _, v := range k.Values {
						sinks[lang].add(s.ID+" knob value "+k.Name+"="+v, k.ValueText(lang, v))
					}
				}
				sinks[lang].add(s.ID+" lesson title", i18n.T(lang, s.Title))
				sinks[lang].add(s.ID+" lesson summary", i18n.T(lang, s.Summary))
			}
			check(t, sinks)
		})
	}
}

var placeholder = regexp.MustCompile(`\{[a-z0-9_]+\}`)

// Every value of the catalogues — the canvas labels and page words too —
// follows the same rules, its placeholders standing for a value that may
// be Chinese or Latin ("〇", which needs no space either way). Error
// messages may name what a reader types.
func TestCatalogueLanguageRules(t *testing.T) {
	sinks := newSinks()
	code := errorCode(nil)
	for _, lang := range i18n.Langs() {
		for _, k := range i18n.Keys(lang) {
			v := placeholder.ReplaceAllString(i18n.T(lang, k), "〇")
			if lang == "en" {
				v = placeholder.ReplaceAllString(i18n.T(lang, k), "X")
			}
			if strings.HasPrefix(k, "error.") {
				sinks[lang].add("catalogue "+lang+" "+k, v, code...)
			} else {
				sinks[lang].add("catalogue "+lang+" "+k, v)
			}
		}
	}
	check(t, sinks)
}

// engineRefusals are configurations the engine refuses, one for each of
// its messages a reader can reach from a lesson's knobs, with the key
// that words it (its errs.Error code).
var engineRefusals = []struct{ frag, key string }{
	{"scenario=tensor-parallel&gpus=32", "error.engine.gpus_tp_pp"},
	{"scenario=tensor-parallel&tp=32&pp=2", "error.engine.tp_heads"},
	{"scenario=strategy-planner&gpus=8", "error.engine.no_plan"},
	{"scenario=strategy-planner&gpus=8&model=megatron-1t", "error.engine.no_plan"},
	{"scenario=strategy-planner&model=custom&heads=4", "error.engine.kv_heads"},
	{"scenario=strategy-planner&model=custom&hidden=100&heads=3&kv_heads=3", "error.engine.heads_hidden"},
	{"scenario=pipeline-parallel&interleave=2", "error.engine.interleave_schedule"},
	{"scenario=pipeline-parallel&schedule=interleaved", "error.engine.interleaved_needs"},
	{"scenario=pipeline-parallel&micro_batches=2&schedule=interleaved&interleave=2", "error.engine.micro_batches_pp"},
	{"scenario=ring-allreduce&gpus=4&nodes=8", "error.engine.nodes"},
	{"scenario=simt-launch&threads=1024&registers=255", "error.engine.block_fit"},
	{"scenario=simt-launch&gpu=a100-80gb&smem=232448", "error.engine.smem"},
	{"scenario=roofline&gpu=a100-80gb&dtype=fp8", "error.engine.dtype_allowed"},
	{"scenario=sandbox&model=custom&q_lora_rank=128", "error.engine.mla_kv"},
}

// Every refusal of the engine a reader can reach reads in the reader's
// language: each known one by its own key, and any other that a sample of
// random settings finds is one of the keys too (not the engine's English
// line passed through error.command).
func TestEngineRefusalsLocalized(t *testing.T) {
	sinks := newSinks()
	for i, r := range engineRefusals {
		// -short (make test's run under Node.js, where each player costs
		// ~20× more): every third refusal; the native run reads them all.
		if testing.Short() && i%3 != 0 {
			continue
		}
		_, errs, err := NewPlayerAt(r.frag)
		if err != nil || len(errs) != 1 || errs[0].Key != r.key {
			var keys []string
			for _, e := range errs {
				keys = append(keys, e.Key+": "+e.Error())
			}
			t.Errorf("%s: errors %v (%v), want one %s", r.frag, keys, err, r.key)
			continue
		}
		s, _ := Get(strings.TrimPrefix(strings.Split(r.frag, "&")[0], "scenario="))
		for _, lang := range i18n.Langs() {
			sinks[lang].add(r.frag+" "+lang, errs[0].Localize(lang), errorCode(s)...)
		}
	}
	// HF config.json refusals, on the planner.
	p, _, _ := NewPlayerAt("scenario=strategy-planner")
	for _, js := range []string{`{`, `{"hidden_size": 4096}`, `{"hidden_size": 0, "num_hidden_layers": 2, "num_attention_heads": 2, "intermediate_size": 8, "vocab_size": 8}`,
		`{"hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 2, "intermediate_size": 8, "vocab_size": 8, "hidden_act": "tanh"}`,
		`{"hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 2, "intermediate_size": 8, "vocab_size": 8, "text_config": {}}`,
		`{"model_type": "mixtral", "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 2, "intermediate_size": 8, "vocab_size": 8, "hidden_act": "silu", "num_local_experts": 4, "num_experts_per_tok": 2}`,
		`{"model_type": "falcon", "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 2, "intermediate_size": 8, "vocab_size": 8}`,
		`{"model_type": "llama", "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 2, "intermediate_size": 8, "vocab_size": 8, "num_local_experts": 8}`,
		`{"hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 2, "intermediate_size": 8, "vocab_size": 8, "n_routed_experts": 8}`,
		`{"model_type": "mixtral", "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 2, "num_key_value_heads": 2, "intermediate_size": 8, "vocab_size": 8, "num_local_experts": 8, "num_experts": 4}`,
		`{"model_type": "mixtral", "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 2, "num_key_value_heads": 2, "intermediate_size": 8, "vocab_size": 8, "num_local_experts": 0}`,
		`{"model_type": "llama4_text", "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 2, "num_key_value_heads": 2, "intermediate_size": 8, "vocab_size": 8, "max_position_embeddings": 64, "interleave_moe_layer_step": 2}`,
		`{"model_type": "llama", "x": ` + strings.Repeat("[", 2000) + strings.Repeat("]", 2000) + `}`} {
		e := p.HFConfig(js)
		if e == nil || e.Key == "error.command" {
			t.Errorf("HFConfig(%s): %v, want a worded refusal", js, e)
			continue
		}
		for _, lang := range i18n.Langs() {
			sinks[lang].add("hf-config "+js+" "+lang, e.Localize(lang), append(errorCode(nil), tokens(js)...)...)
		}
	}
	if !testing.Short() {
		for _, s := range All() {
			rnd := uint64(len(s.ID))
			next := func(n int) int {
				rnd = rnd*6364136223846793005 + 1442695040888963407
				return int((rnd >> 33) % uint64(n))
			}
			for range 40 {
				c := s.Defaults()
				for _, k := range s.Knobs {
					if next(3) != 0 {
						continue
					}
					switch k.Kind {
					case KnobEnum:
						c[k.Name] = k.Values[next(len(k.Values))]
					case KnobInt:
						c[k.Name] = strconv.FormatInt(k.Min+int64(next(int(min(k.Max-k.Min+1, 1<<20)))), 10)
					}
				}
				_, errs, _ := NewPlayerAt(EncodeFragment(State{Scenario: s.ID, Step: 1, Lang: "zh", Config: c}))
				for _, e := range errs {
					if e.Key == "error.command" {
						t.Errorf("%s %s: the engine's refusal %q carries no code (errs.Error)", s.ID, configDiff(s, c), e.Error())
					}
					for _, lang := range i18n.Langs() {
						sinks[lang].add(s.ID+" "+configDiff(s, c)+" "+lang, e.Localize(lang), errorCode(s)...)
					}
				}
			}
		}
	}
	check(t, sinks)
}

// tokens are the words of what a reader typed, which an error message
// may quote.
func tokens(in string) []string {
	return strings.FieldsFunc(in, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-')
	})
}
