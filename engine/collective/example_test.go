package collective_test

import (
	"fmt"

	"github.com/gpuscope/gpuscope/engine/collective"
	"github.com/gpuscope/gpuscope/engine/hw"
	"github.com/gpuscope/gpuscope/engine/units"
)

// A ring all-reduce of 256 MiB on eight GPUs over NVLink 4: every GPU
// sends 2(N−1)/N of the vector, and the run agrees with the closed form.
func ExampleRun() {
	link, _ := hw.LinkByID("nvlink4")
	r, err := collective.Run(collective.Config{Op: collective.AllReduce, Algo: collective.Ring, Ranks: 8, Bytes: 256 << 20, Link: link})
	if err != nil {
		panic(err)
	}
	m := r.Metrics()
	fmt.Println("time", units.Duration(m.TimeS), "closed form", units.Duration(m.ClosedFormTimeS))
	fmt.Println("sent per GPU", units.BytesIEC(float64(m.BytesSentPerRank)), "in", m.Rounds, "rounds")
	fmt.Println("busbw", units.Rate(m.BusBWGBps*1e9))
	// Output:
	// time 1.06 ms closed form 1.06 ms
	// sent per GPU 448 MiB in 14 rounds
	// busbw 444 GB/s
}

// The alpha-beta cost of a ring against a star: the star's root link
// carries every GPU's vector twice.
func ExampleRingAllReduceSeconds() {
	ring := collective.RingAllReduceSeconds(64, 1<<30, 1e-6, 450e9)
	star := collective.StarAllReduceSeconds(64, 1<<30, 1e-6, 450e9)
	fmt.Println(units.Duration(ring), units.Duration(star), units.Ratio("en", star/ring))
	// Output:
	// 4.82 ms 301 ms 62.3×
}
