// Command gpuscope is the native command line over the same engine the
// browser runs: calculators, headless scenario runs, and a static file
// server for the built site.
//
//	gpuscope collective --op allreduce --algo ring --ranks 8 --bytes 256MiB --link nvlink4 [--json]
//	gpuscope numfmt --format fp32|fp16|bf16|fp8-e4m3|fp8-e5m2 --value X [--json]
//	gpuscope attention --seq N --head-dim d --heads H --batch B --gpu G --impl standard|flash [--json]
//	gpuscope faults --gpus N --mtbf-gpu-hours H --checkpoint-every-s C --checkpoint-cost-s W --restart-cost-s R --days D --seed S [--json]
//	gpuscope gemm --m M --n N --k K --dtype bf16 --gpu h100 --kernel naive|smem-tiled|tensor-tiled [--tile 128x128x64] [--json]
//	gpuscope quantize --recipe tensor|block128|mxfp8|nvfp4 --values N --outlier K --seed S [--dist normal|lognormal] [--json]
//	gpuscope plan --model PRESET --gpus N --tp T --pp P [--dp D] [--zero Z] [--recompute none|selective|full] [--search | --tokens N [--price USD]] [--json]
//	gpuscope roofline --gpu a100-80gb|a100-40gb|a800|h100|h100-pcie|h100-nvl|h200|h800|h20|gh200|b200|gb200|b300|gb300 --dtype fp32|tf32|fp16|bf16|fp8|fp4 [--json]
//	gpuscope route --model mixtral-8x7b|deepseek-v3 --tokens T --ep E --skew S --capacity-factor F --seed N [--json]
//	gpuscope scenario list [--json] [--lang en|zh]
//	gpuscope scenario run ID [--json] [--lang en|zh] [--KNOB VALUE ...]
//	gpuscope serve [--addr localhost:8080] [--dir site/dist]
//	gpuscope site [--dist site/dist] [--base http://localhost:8080/] [--course site/course]
//	gpuscope help [CMD], gpuscope CMD --help
//	gpuscope validate [--json]
//	gpuscope version
//
// Bad flags print one line naming the flag and the allowed values, and exit
// with status 2. -h or --help after a command prints its usage with every
// flag, its allowed values and its default, and exits with status 0.
package main

import (
	"fmt"
	"io"
	"os"
)

const usage = `usage:
  gpuscope collective --op allreduce --algo ring|star --ranks N --bytes B --link nvlink4|ib-ndr [--json]
  gpuscope numfmt --format fp32|fp16|bf16|fp8-e4m3|fp8-e5m2 --value X [--json]
  gpuscope attention --seq N --head-dim d --heads H --batch B --gpu G --impl standard|flash [--json]
  gpuscope faults --gpus N --mtbf-gpu-hours H --checkpoint-every-s C --checkpoint-cost-s W --restart-cost-s R --days D --seed S [--json]
  gpuscope gemm --m M --n N --k K --dtype bf16 --gpu h100 --kernel naive|smem-tiled|tensor-tiled [--tile 128x128x64] [--json]
  gpuscope plan (--model PRESET | --hf-config FILE | --layers L --hidden H --heads A --seq S --vocab V [--ffn F] | --params N)
                [--gpus N --tp T --cp C --pp P --dp D --ep E --interleave V --sp --zero 0-3 --recompute none|selective|full --flash --overlap
                 --micro-batch B --global-batch G --gpu GPU --gpus-per-node 8 --bytes-per-param 16|18
                 --schedule gpipe|1f1b|interleaved|dualpipe|zb-h1|zb-v|dualpipev --dtype bf16|fp16|fp8 --kernels --at SECONDS --rank N ...] [--search [--top K]]
                [--tokens N [--price USD --pue X --mtbf-gpu-hours H --checkpoint-cost-s W --restart-cost-s R]] [--json]
  gpuscope quantize --recipe tensor|block128|mxfp8|nvfp4 --values N --outlier K --seed S [--dist normal|lognormal] [--json]
  gpuscope roofline --gpu GPU --dtype fp32|tf32|fp16|bf16|fp8|fp4 [--json]
  gpuscope route --model mixtral-8x7b|deepseek-v3 --tokens T --ep E --skew S --capacity-factor F --seed N [--json]
  gpuscope scenario list [--json] [--lang en|zh]
  gpuscope scenario run ID [--json] [--lang en|zh] [--KNOB VALUE ...]
  gpuscope serve [--addr HOST:PORT] [--dir DIR]
  gpuscope site [--dist DIR] [--base URL] [--course DIR]
  gpuscope validate [--json]   every published figure the engine is held to: published, engine, error, tolerance
  gpuscope help [CMD]    this list, or CMD's flags with their allowed values and defaults
                         (the same as gpuscope CMD --help)
  gpuscope version       the module version and the VCS revision it was built from`

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) < 1 {
		fmt.Fprintln(stderr, usage)
		return 2
	}
	switch args[0] {
	case "collective":
		return runCollective(args[1:], stdout, stderr)
	case "numfmt":
		return runNumfmt(args[1:], stdout, stderr)
	case "attention":
		return runAttention(args[1:], stdout, stderr)
	case "faults":
		return runFaults(args[1:], stdout, stderr)
	case "gemm":
		return runGEMM(args[1:], stdout, stderr)
	case "plan":
		return runPlan(args[1:], stdout, stderr)
	case "quantize":
		return runQuantize(args[1:], stdout, stderr)
	case "roofline":
		return runRoofline(args[1:], stdout, stderr)
	case "route":
		return runRoute(args[1:], stdout, stderr)
	case "scenario":
		return runScenario(args[1:], stdout, stderr)
	case "serve":
		return runServe(args[1:], stdout, stderr)
	case "site":
		return runSite(args[1:], stdout, stderr)
	case "validate":
		return runValidate(args[1:], stdout, stderr)
	case "help", "-h", "--help", "-help":
		return runHelp(args[1:], stdout, stderr)
	case "version", "--version", "-version":
		return runVersion(args[1:], stdout, stderr)
	}
	fmt.Fprintf(stderr, "gpuscope: unknown command %q; allowed: attention, collective, faults, gemm, numfmt, plan, quantize, roofline, route, scenario, serve, site, validate, help, version\n", args[0])
	return 2
}
