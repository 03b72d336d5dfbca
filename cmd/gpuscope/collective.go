package main

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/gpuscope/gpuscope/engine/collective"
	"github.com/gpuscope/gpuscope/engine/hw"
	"github.com/gpuscope/gpuscope/engine/sim"
	"github.com/gpuscope/gpuscope/scenarios"
)

var collectiveKnobs = []scenarios.Knob{
	{Name: "op", Kind: scenarios.KnobEnum, Values: []string{string(collective.AllReduce)}, Default: string(collective.AllReduce)},
	{Name: "algo", Kind: scenarios.KnobEnum, Values: []string{string(collective.Ring), string(collective.Star)}, Default: string(collective.Ring)},
	{Name: "ranks", Kind: scenarios.KnobInt, Min: collective.MinRanks, Max: collective.MaxRanks, Default: "8"},
	{Name: "bytes", Kind: scenarios.KnobBytes, Min: collective.MinBytes, Max: collective.MaxBytes, Default: "268435456"},
	{Name: "link", Kind: scenarios.KnobEnum, Values: hw.LinkIDs(), Default: "nvlink4"},
}

func runCollective(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet(collectiveKnobs, "json")
	if err := fs.parse(args); err != nil {
		fmt.Fprintf(stderr, "gpuscope collective: %v\n", err)
		return 2
	}
	if len(fs.args) > 0 {
		fmt.Fprintf(stderr, "gpuscope collective: unexpected argument %q; allowed flags: %s\n", fs.args[0], fs.allowed())
		return 2
	}
	cfg := scenarios.Config{
		"algo":  fs.value("algo"),
		"gpus":  fs.value("ranks"),
		"bytes": fs.value("bytes"),
		"link":  fs.value("link"),
	}
	cc, err := scenarios.CollectiveConfig(cfg)
	if err != nil {
		fmt.Fprintf(stderr, "gpuscope collective: %v\n", err)
		return 2
	}
	cc.Record = false
	res, err := collective.Run(cc)
	if err != nil {
		fmt.Fprintf(stderr, "gpuscope collective: %v\n", err)
		return 2
	}
	m := res.Metrics()
	if fs.bools["json"] {
		return writeJSON(stdout, stderr, m)
	}
	fmt.Fprintf(stdout, "%s %s: %d ranks × %s on %s\n", m.Algo, m.Op, m.Ranks, scenarios.FormatBytes(m.Bytes), cc.Link.Name)
	fmt.Fprintf(stdout, "  time_s               %.6g  (%s; closed form %s)\n", m.TimeS, sim.FromSeconds(m.TimeS), sim.FromSeconds(m.ClosedFormTimeS))
	fmt.Fprintf(stdout, "  bytes_sent_per_rank  %d  (%s)\n", m.BytesSentPerRank, scenarios.FormatBytes(m.BytesSentPerRank))
	fmt.Fprintf(stdout, "  algbw_GBps           %.2f\n", m.AlgBWGBps)
	fmt.Fprintf(stdout, "  busbw_GBps           %.2f\n", m.BusBWGBps)
	fmt.Fprintf(stdout, "  rounds               %d\n", m.Rounds)
	return 0
}

func writeJSON(stdout, stderr io.Writer, v any) int {
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		fmt.Fprintf(stderr, "gpuscope: %v\n", err)
		return 1
	}
	return 0
}
