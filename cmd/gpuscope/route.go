package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/gpuscope/gpuscope/engine/moe"
	"github.com/gpuscope/gpuscope/engine/units"
	"github.com/gpuscope/gpuscope/scenarios"
)

var routeHelp = cmdHelp{
	name:  "gpuscope route",
	usage: "[--model M --gpu G --tokens T --ep E --skew S --capacity-factor F --seed N] [--json]",
	about: `One mixture-of-experts layer routing one batch: each token to its top-k
experts, drawn in proportion to the router's popularity of each (skew 0: all
equal); with a capacity factor, each GPU's buffer for an expert holds
⌈F × tokens × top-k ÷ experts⌉ copies and drops the rest. The experts are
spread over EP GPUs, 8 a node (NVLink inside, InfiniBand NDR across). Prints
the loads, what was dropped and padded, and the dispatch all-to-all: the
busiest GPU's bytes, the share leaving the node and the time on each link
(layer_s: dispatch and combine, forward). The mixture-of-experts lesson's
numbers.`,
	flags: map[string]flagDoc{
		"model":           {what: "the mixture of experts (its experts, top-k and width)"},
		"gpu":             {what: "the GPUs of the nodes (their NVLink)"},
		"tokens":          {what: "each GPU's micro-batch, in tokens"},
		"ep":              {what: "expert parallelism: the GPUs the experts are spread over", allowed: "a divisor of the model's experts"},
		"skew":            {what: "the router's imbalance: expert popularity ∝ rank^−skew", allowed: "0–2"},
		"capacity-factor": {what: "each expert's buffer, × the mean load", allowed: "0 (no capacity: dropless) or 1–16"},
		"seed":            {what: "the random seed (same seed, same routes)"},
		"json":            jsonDoc,
	},
}

func runRoute(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet([]scenarios.Knob{
		{Name: "model", Kind: scenarios.KnobEnum, Values: scenarios.MoEModels, Default: scenarios.MoEModels[0]},
		{Name: "gpu", Kind: scenarios.KnobEnum, Values: []string{"h100", "h800"}, Default: "h100"},
		{Name: "tokens", Kind: scenarios.KnobInt, Min: 1, Max: moe.MaxCopies, Default: "4096"},
		{Name: "ep", Kind: scenarios.KnobInt, Min: 1, Max: 4096, Default: "8"},
		{Name: "seed", Kind: scenarios.KnobInt, Min: 0, Max: 1<<62 - 1, Default: "1"},
	}, "json")
	fs.float("skew", "0")
	fs.float("capacity-factor", "0")
	fs.help = routeHelp
	if err := fs.parse(args); err != nil {
		return fs.stop(err, stdout, stderr)
	}
	if len(fs.args) > 0 {
		fmt.Fprintf(stderr, "gpuscope route: unexpected argument %q; allowed flags: %s\n", fs.args[0], fs.allowed())
		return 2
	}
	g := func(name string) string { return strconv.FormatFloat(fs.number(name), 'g', -1, 64) }
	c := scenarios.Config{"model": fs.value("model"), "gpu": fs.value("gpu"), "tokens": fs.value("tokens"), "ep": fs.value("ep"),
		"seed": fs.value("seed"), "skew": g("skew"), "capacity_factor": g("capacity-factor")}
	r, err := scenarios.Route(c)
	if err != nil {
		fmt.Fprintf(stderr, "gpuscope route: --%s\n", strings.Replace(err.Error(), "capacity_factor", "capacity-factor", 1))
		return 2
	}
	m := r.Metrics()
	if fs.bools["json"] {
		return writeJSON(stdout, stderr, m)
	}
	cfg := r.Result.Config
	fmt.Fprintf(stdout, "%s: %d tokens on each of %d GPUs, each to its top %d of %d experts (%s parameters, %s active a token)\n",
		r.Model.Name, cfg.Tokens, cfg.EP, cfg.TopK, cfg.Experts, units.Params(m.Params), units.Params(m.ActiveParams))
	fmt.Fprintf(stdout, "  copies            %d  (mean %.0f an expert, busiest %d: %.2f× the mean)\n", m.Copies, m.MeanLoad, m.MaxLoad, m.Imbalance)
	if m.Capacity > 0 {
		fmt.Fprintf(stdout, "  capacity          %d a GPU an expert (capacity factor %g)\n", m.Capacity, cfg.CapacityFactor)
		fmt.Fprintf(stdout, "  dropped           %d  (%.4f of the copies)\n", m.Dropped, m.DroppedShare)
		fmt.Fprintf(stdout, "  padded            %d  (%.4f of the slots)\n", m.Padded, m.PaddedShare)
	}
	if cfg.EP > 1 {
		fmt.Fprintf(stdout, "  dispatch_bytes    %.0f  (%s, the busiest GPU; %.4f of all bytes leave their node)\n", m.DispatchBytes, units.Bytes(m.DispatchBytes), m.InterNodeShare)
		fmt.Fprintf(stdout, "  intra_node_s      %.6g  (%s)\n", m.IntraS, cfg.Intra.Name)
		fmt.Fprintf(stdout, "  inter_node_s      %.6g  (%s)\n", m.InterS, cfg.Inter.Name)
		fmt.Fprintf(stdout, "  layer_s           %.6g  (dispatch and combine, forward)\n", m.LayerS)
	}
	return 0
}
