//go:build !(linux || darwin)

package main

import (
	"errors"
	"os"
)

// peakRSS is unknown here: −1, and the trial checks no memory.
func peakRSS(*os.ProcessState) int64 { return -1 }

// canLimitOpenFiles: limitOpenFiles works here.
const canLimitOpenFiles = false

// limitOpenFiles is not supported here.
func limitOpenFiles(uint64) error { return errors.ErrUnsupported }
