package units_test

import (
	"fmt"

	"github.com/gpuscope/gpuscope/engine/units"
)

func Example() {
	fmt.Println(units.Bytes(34.81e9), units.Rate(900e9), units.FLOPS(989.4e12))
	fmt.Println(units.Duration(2.7e-3), units.Duration(54*86400), units.LocalDuration("zh", 54*86400))
	fmt.Println(units.Ratio("en", 8.131), units.Ratio("zh", 8.131), units.Percent(0.899), units.Count(16384))
	// Output:
	// 34.8 GB 900 GB/s 989 TFLOP/s
	// 2.7 ms 54 d 54 天
	// 8.13× 8.13 倍 89.9% 16,384
}
