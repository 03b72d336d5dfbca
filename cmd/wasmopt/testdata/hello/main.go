// Command hello is wasmopt's test program: it prints values drawn from
// every kind of static data the Go linker lays out (strings, tables with
// runs of zeros, type names, Unicode tables, a map literal), so that a
// wrongly laid-out byte changes its output.
package main

import (
	"fmt"
	"hash/crc32"
	"reflect"
	"sort"
	"strings"
	"unicode"
)

// sparse is mostly zeros: the linker splits its data at the zero runs.
var sparse = [64]uint64{3: 0xdead_beef, 17: 1, 40: 1 << 60, 63: 42}

var table = map[string]float64{"pi": 3.14159, "e": 2.71828, "phi": 1.61803}

type point struct {
	X, Y int16
	Name string
}

func main() {
	var sum uint64
	for i, v := range sparse {
		sum += uint64(i+1) * v
	}
	keys := make([]string, 0, len(table))
	for k := range table {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Printf("%s=%.5f ", k, table[k])
	}
	fmt.Println()
	fmt.Println(sum, reflect.TypeOf(point{}).String(), fmt.Sprintf("%+v", point{1, -2, "p"}))
	fmt.Println(strings.ToUpper("ünïcødé straße ωμέγα"), unicode.IsUpper('Ж'), crc32.ChecksumIEEE([]byte("gpuscope")))
	fmt.Println("hello ok")
}
