//go:build unix

package main

import "syscall"

// openFileLimit is the process's limit on open files (0 when unknown).
func openFileLimit() int {
	var r syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &r); err != nil {
		return 0
	}
	return int(min(uint64(r.Cur), 1<<30))
}
