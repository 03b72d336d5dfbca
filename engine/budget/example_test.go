package budget_test

import (
	"fmt"

	"github.com/gpuscope/gpuscope/engine/budget"
	"github.com/gpuscope/gpuscope/engine/hw"
)

// 2T tokens on 2,048 H100s at 8 s a step of 4M tokens, the GPUs busy
// 85% of it, failing at Llama 3's rate.
func ExampleEstimate() {
	c := budget.Default(2e12)
	c.TokensPerStep, c.StepS, c.GPUs, c.Busy = 1024*4096, 8, 2048, 0.85
	c.Power = hw.MustGPU("h100").Power()
	c.PriceUSDPerGPUHour = 2
	r, err := budget.Estimate(c)
	if err != nil {
		panic(err)
	}
	fmt.Printf("%.0f steps, %.1f days ideal, goodput %.3f: %.1f days\n", r.Steps, r.IdealDays, r.Goodput, r.Days)
	fmt.Printf("%.3gM GPU-hours (%.3gM ideal), %.0f MWh, $%.3gM\n", r.GPUHours/1e6, r.IdealGPUHours/1e6, r.EnergyMWh, r.CostUSD/1e6)
	// Output:
	// 476838 steps, 44.2 days ideal, goodput 0.957: 46.1 days
	// 2.27M GPU-hours (2.17M ideal), 2970 MWh, $4.53M
}
