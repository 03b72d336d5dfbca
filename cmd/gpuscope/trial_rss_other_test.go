//go:build !(linux || darwin)

package main

import "os"

// peakRSS is unknown here: −1, and the trial checks no memory.
func peakRSS(*os.ProcessState) int64 { return -1 }
