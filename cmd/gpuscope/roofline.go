package main

import (
	"fmt"
	"io"

	"github.com/gpuscope/gpuscope/engine/hw"
	"github.com/gpuscope/gpuscope/engine/kernel"
	"github.com/gpuscope/gpuscope/scenarios"
)

func dtypeIDs() []string {
	ids := make([]string, len(hw.Dtypes))
	for i, d := range hw.Dtypes {
		ids[i] = string(d)
	}
	return ids
}

var rooflineHelp = cmdHelp{
	name:  "gpuscope roofline",
	usage: "[--gpu G --dtype D] [--json]",
	about: `A GPU's roofline for one number format: peak_tflops (dense: NVIDIA's
figures with 2:4 sparsity are twice it), hbm_TBps and the ridge point
ridge_flop_per_byte (peak ÷ bandwidth; a kernel of lower arithmetic
intensity is memory-bound).`,
	flags: map[string]flagDoc{
		"gpu":   {what: "the GPU"},
		"dtype": {what: "the number format (the GPU must have a unit for it)"},
		"json":  jsonDoc,
	},
}

func runRoofline(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet([]scenarios.Knob{
		{Name: "gpu", Kind: scenarios.KnobEnum, Values: hw.GPUIDs(), Default: "h100"},
		{Name: "dtype", Kind: scenarios.KnobEnum, Values: dtypeIDs(), Default: "bf16"},
	}, "json")
	fs.help = rooflineHelp
	if err := fs.parse(args); err != nil {
		return fs.stop(err, stdout, stderr)
	}
	if len(fs.args) > 0 {
		fmt.Fprintf(stderr, "gpuscope roofline: unexpected argument %q; allowed flags: %s\n", fs.args[0], fs.allowed())
		return 2
	}
	g, _ := hw.GPUByID(fs.value("gpu"))
	r, err := kernel.NewRoofline(g, hw.Dtype(fs.value("dtype")))
	if err != nil {
		fmt.Fprintf(stderr, "gpuscope roofline: --dtype: %s has no %s unit; allowed for it: %s\n", g.Name, fs.value("dtype"), g.DtypeList())
		return 2
	}
	m := r.Metrics()
	if fs.bools["json"] {
		return writeJSON(stdout, stderr, m)
	}
	fmt.Fprintf(stdout, "%s, %s: peak %.1f TFLOP/s dense, HBM %.3f TB/s\n", g.Name, m.Dtype, m.PeakTFLOPS, m.HBMTBps)
	fmt.Fprintf(stdout, "  ridge_flop_per_byte  %.1f  (peak ÷ bandwidth: below it a kernel is memory-bound)\n", m.RidgeFLOPPerByte)
	return 0
}
