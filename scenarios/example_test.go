package scenarios_test

import (
	"fmt"

	"github.com/gpuscope/gpuscope/scenarios"
)

func ExampleApplyFragment() {
	st, errs := scenarios.ApplyFragment(scenarios.DefaultState(), "#gpus=16&bytes=1GiB&lang=zh&step=3&link=pcie")
	for _, e := range errs {
		fmt.Println(e.Localize(st.Lang))
	}
	fmt.Println(scenarios.EncodeFragment(st))
	// Output:
	// link：“pcie”不在可选值 nvlink4、ib-ndr 之中
	// scenario=ring-allreduce&step=3&lang=zh&gpus=16&bytes=1073741824&link=nvlink4&algo=ring&nodes=1
}

func ExampleKnob_Parse() {
	s, _ := scenarios.Get("ring-allreduce")
	k, _ := s.Knob("bytes")
	for _, text := range []string{"256MiB", "1.5GB", "8GiB"} {
		v, err := k.Parse(text)
		fmt.Printf("%q %q %v\n", text, v, err)
	}
	// Output:
	// "256MiB" "268435456" <nil>
	// "1.5GB" "1500000000" <nil>
	// "8GiB" "" bytes: 8GiB is out of range; allowed 1KiB–4GiB
}
