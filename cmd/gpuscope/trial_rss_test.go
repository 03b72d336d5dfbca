//go:build linux || darwin

package main

import (
	"os"
	"runtime"
	"syscall"
)

// peakRSS is a finished process's largest resident set in bytes: Linux
// counts ru_maxrss in KiB, macOS in bytes.
func peakRSS(ps *os.ProcessState) int64 {
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok {
		return -1
	}
	if runtime.GOOS == "darwin" {
		return int64(ru.Maxrss)
	}
	return int64(ru.Maxrss) << 10
}

// canLimitOpenFiles: limitOpenFiles works here.
const canLimitOpenFiles = true

// limitOpenFiles lowers the process's limit on open files to n.
func limitOpenFiles(n uint64) error {
	var r syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &r); err != nil {
		return err
	}
	r.Cur = min(n, r.Max)
	return syscall.Setrlimit(syscall.RLIMIT_NOFILE, &r)
}
