// Package scenarios holds gpuscope's guided lessons as data, the loader
// that checks them, the knobs a reader can move, and the URL fragment that
// carries a reader's place in a lesson.
//
// # Scenario files
//
// A scenario is an embedded text file data/ID.scn, read line by line.
// Blank lines and lines starting with '#' are ignored; indentation is
// optional and ignored. Every other line is "directive: arguments". The
// header comes first:
//
//	scenario: ring-allreduce           # the id; must match the file name
//	title: lesson.ring-allreduce.title # i18n keys, checked against the catalogue
//	summary: lesson.ring-allreduce.summary
//	kind: collective                   # the lesson's kind (kinds.go); engine: is read too
//	knob: gpus  int   min=2 max=64 default=8 label=knob.gpus
//	knob: bytes bytes min=1KiB max=4GiB default=256MiB label=knob.bytes
//	knob: link  enum  values=nvlink4,ib-ndr default=nvlink4 label=knob.link
//
// Each "step: ID" line opens a step; the lines after it, up to the next
// step, belong to it:
//
//	title: KEY          required, an i18n key
//	text: KEY           required, an i18n key
//	set: knob=value ... optional, may repeat: the step's configuration
//	from: MARK          required: where on the engine's trace the step starts
//	to: MARK            required: where it ends
//	hide: knob          optional, may repeat: a knob the page hides
//	show: VIEW ...      optional: the picture, one of the views the kind offers
//	predict: ID         optional: a question, one of those the kind asks
//	picture: same       optional: the step shows the previous step's picture on
//	                    purpose (its point is in the narration or the numbers)
//	checkpoint: m1 m2   optional: metrics the golden test records
//
// # Kinds
//
// A lesson's kind (kinds.go, the registry) says which engine runs it, which
// layer of the curriculum it belongs to, which views its steps may show and
// which questions they may ask; a show: or predict: line naming anything
// else is a load error that lists what the kind allows. Each kind's
// preparer is in kind_NAME.go and its questions in questions_NAME.go; its
// picture is drawn by package scene.
//
// A mark is start, end, phase:NAME (reduce-scatter, all-gather, gather,
// broadcast), round:K (K ≥ 1, counted over all rounds) or round:last-rs
// (the last reduce-scatter round); see ParseMark.
//
// Knob kinds: int (a whole number), bytes (a whole number of bytes, written
// plainly or with a suffix: B, KB, MB, GB, TB are powers of 1000, KiB, MiB,
// GiB, TiB powers of 1024, case-insensitive, a space allowed, a decimal
// fraction allowed when the result is a whole number of bytes; the
// canonical form is the plain integer) and enum (one of a list). The label
// of an enum value v of knob k is the i18n key "k.v"; a checkpoint metric m
// has the label "metric.m". The loader checks both.
//
// # Errors
//
// A bad scenario file is a *FileError naming file, line and field (Load
// reports every problem it finds, joined with errors.Join). A bad value
// from a reader — URL fragment, CLI flag, page command — is an *InputError
// that carries an i18n key and its arguments, so that it can be shown in
// either language; the caller keeps its last good state.
//
// Nothing here panics on any input; the fragment parser is fuzzed.
package scenarios
