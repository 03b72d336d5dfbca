package sim_test

import (
	"fmt"

	"github.com/gpuscope/gpuscope/engine/sim"
)

// Events run in time order; two at the same time run first in, first out.
func ExampleQueue() {
	var q sim.Queue
	q.Schedule(2*sim.Microsecond, 1, 0, 0)
	q.Schedule(1*sim.Microsecond, 2, 0, 0)
	q.Schedule(2*sim.Microsecond, 3, 0, 0)
	for {
		ev, ok := q.Pop()
		if !ok {
			break
		}
		fmt.Println(ev.At, "kind", ev.Kind)
	}
	// Output:
	// 1 µs kind 2
	// 2 µs kind 1
	// 2 µs kind 3
}

// A transfer never finishes early: 32 MiB at 450 GB/s, rounded up to a
// picosecond.
func ExampleTransferTime() {
	fmt.Println(sim.TransferTime(32<<20, 450e9), int64(sim.TransferTime(32<<20, 450e9)))
	// Output:
	// 74.6 µs 74565405
}
