package parallel

import "testing"

// The configurations of the published checks here, for the external test
// that holds engine/validate's rows to them.
var (
	Korthikanti22BForTest = korthikanti22B
	NarayananForTest      = narayanan
	Llama405ForTest       = llama405AsRun
	Llama405LongForTest   = llama405Long
)

// DeepSeekV3ForTest is TestDeepSeekV3Published's configuration, as it
// ran, on the schedule given.
func DeepSeekV3ForTest(t *testing.T, s Schedule) Config {
	m, p, cl := deepSeekV3AsRun(t)
	p.Schedule = s
	return Config{Model: m, Plan: p, Cluster: cl}
}
