package main

import (
	"fmt"
	"io"
	"strconv"

	"github.com/gpuscope/gpuscope/engine/hw"
	"github.com/gpuscope/gpuscope/engine/kernel"
	"github.com/gpuscope/gpuscope/engine/units"
	"github.com/gpuscope/gpuscope/scenarios"
)

var attentionHelp = cmdHelp{
	name:  "gpuscope attention",
	usage: "[--seq N --head-dim d --heads H --batch B --gpu G --dtype D --impl standard|flash --flash-version 2|3 --causal] [--json]",
	about: `The HBM traffic and the time of one attention core (QKᵀ, softmax, ×V),
standard (the N×N scores written to HBM and read back) or FlashAttention
(tiled in shared memory, K and V streamed from L2): hbm_bytes, score_bytes,
time_s.`,
	flags: map[string]flagDoc{
		"seq":           {what: "sequence length N, tokens"},
		"head-dim":      {what: "head dimension d"},
		"heads":         {what: "attention heads H"},
		"batch":         {what: "sequences in the batch B"},
		"gpu":           {what: "the GPU"},
		"dtype":         {what: "the number format of Q, K, V and the scores"},
		"impl":          {what: "standard attention or FlashAttention"},
		"flash-version": {what: "FlashAttention's generation: 3, or 2 (on Hopper at its own measured rates)", def: "the newest the GPU runs"},
		"causal":        {what: "a decoder's causal mask: FlashAttention skips the blocks above the diagonal, half the work, at its measured causal rates; standard attention computes every score and masks them", def: "off"},
		"json":          jsonDoc,
	},
}

func runAttention(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet([]scenarios.Knob{
		{Name: "seq", Kind: scenarios.KnobInt, Min: 1, Max: 1 << 22, Default: "2048"},
		{Name: "head-dim", Kind: scenarios.KnobInt, Min: 1, Max: 1024, Default: "128"},
		{Name: "heads", Kind: scenarios.KnobInt, Min: 1, Max: 1024, Default: "96"},
		{Name: "batch", Kind: scenarios.KnobInt, Min: 1, Max: 1 << 16, Default: "1"},
		{Name: "gpu", Kind: scenarios.KnobEnum, Values: hw.GPUIDs(), Default: "h100"},
		{Name: "dtype", Kind: scenarios.KnobEnum, Values: dtypeIDs(), Default: "bf16"},
		{Name: "impl", Kind: scenarios.KnobEnum, Values: []string{string(kernel.StandardAttention), string(kernel.FlashAttention)}, Default: string(kernel.FlashAttention)},
		{Name: "flash-version", Kind: scenarios.KnobInt, Min: 2, Max: 3, Default: ""},
	}, "json", "causal")
	fs.help = attentionHelp
	if err := fs.parse(args); err != nil {
		return fs.stop(err, stdout, stderr)
	}
	if len(fs.args) > 0 {
		fmt.Fprintf(stderr, "gpuscope attention: unexpected argument %q; allowed flags: %s\n", fs.args[0], fs.allowed())
		return 2
	}
	atoi := func(name string) int { v, _ := strconv.Atoi(fs.value(name)); return v }
	g, _ := hw.GPUByID(fs.value("gpu"))
	r, err := kernel.Attention(kernel.AttentionConfig{
		Batch: atoi("batch"), Heads: atoi("heads"), Seq: atoi("seq"), HeadDim: atoi("head-dim"),
		Dtype: hw.Dtype(fs.value("dtype")), GPU: g, Impl: kernel.AttentionImpl(fs.value("impl")),
		FlashVersion: atoi("flash-version"), Causal: fs.bools["causal"],
	})
	if err != nil {
		fmt.Fprintf(stderr, "gpuscope attention: --%v\n", err)
		return 2
	}
	m := r.Metrics()
	if fs.bools["json"] {
		return writeJSON(stdout, stderr, m)
	}
	fmt.Fprintf(stdout, "%s attention, batch %d × %d heads, seq %d, head dim %d, %s on %s\n",
		fs.value("impl"), atoi("batch"), atoi("heads"), atoi("seq"), atoi("head-dim"), fs.value("dtype"), g.Name)
	fmt.Fprintf(stdout, "  hbm_bytes    %.0f  (%s)\n  score_bytes  %.0f  (%s; B·H·N²·bytes: the N×N scores, if written out)\n",
		m.HBMBytes, units.Bytes(m.HBMBytes), m.ScoreBytes, units.Bytes(m.ScoreBytes))
	fmt.Fprintf(stdout, "  time_s       %.4g  (%s-bound)\n", m.TimeS, m.Bound)
	return 0
}
