package core

import (
	"bufio"
	"bytes"
	"os"
	"strconv"
	"syscall"
)

// availableMemory returns the bytes this process can still allocate: the
// system's available memory (MemAvailable of /proc/meminfo), or less
// under an address-space limit (ulimit -v, RLIMIT_AS) the room left
// below it (the limit less the process's virtual size, /proc/self/statm).
// It is +Inf when neither can be read.
func availableMemory() float64 {
	avail := unknownMemory
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		sc := bufio.NewScanner(bytes.NewReader(b))
		for sc.Scan() {
			f := bytes.Fields(sc.Bytes())
			if len(f) >= 2 && string(f[0]) == "MemAvailable:" {
				if kb, err := strconv.ParseFloat(string(f[1]), 64); err == nil {
					avail = kb * 1024
				}
			}
		}
	}
	var lim syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_AS, &lim) == nil && lim.Cur != ^uint64(0) {
		room := float64(lim.Cur)
		if b, err := os.ReadFile("/proc/self/statm"); err == nil {
			if f := bytes.Fields(b); len(f) > 0 {
				if pages, err := strconv.ParseFloat(string(f[0]), 64); err == nil {
					room -= pages * float64(os.Getpagesize())
				}
			}
		}
		avail = min(avail, max(room, 0))
	}
	return avail
}
