package fleet

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"time"
)

// clockTick is the unit of utime and stime in /proc/PID/stat: USER_HZ,
// which Linux fixes at 100 for user space on every architecture Go runs on.
const clockTick = 10 * time.Millisecond

// ProcCPU is the user plus system CPU time process pid has used so far,
// every thread included: fields 14 and 15 of /proc/PID/stat. It is read
// from outside the process, so it needs nothing from it but its pid.
func ProcCPU(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, fmt.Errorf("fleet: CPU of %d: %w", pid, err)
	}
	return parseStat(b)
}

func parseStat(b []byte) (time.Duration, error) {
	// The command name (field 2) is in parentheses and may hold spaces and
	// parentheses; the fields after its last closing parenthesis start at
	// field 3.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, fmt.Errorf("fleet: /proc stat without a command name: %q", b)
	}
	f := bytes.Fields(b[i+1:])
	if len(f) < 13 {
		return 0, fmt.Errorf("fleet: /proc stat: %d fields after the name, want 13 or more", len(f))
	}
	var ticks int64
	for _, s := range f[11:13] { // utime, stime: fields 14 and 15
		n, err := strconv.ParseInt(string(s), 10, 64)
		if err != nil {
			return 0, fmt.Errorf("fleet: /proc stat: %w", err)
		}
		ticks += n
	}
	return time.Duration(ticks) * clockTick, nil
}

// Mem is a process's resident memory, from /proc/PID/status.
type Mem struct {
	RSS  int64 // VmRSS, bytes
	Peak int64 // VmHWM: the highest RSS since the process started or ResetPeak
	// Anon is RssAnon, the anonymous part of RSS (heap, stacks): RSS less
	// the pages of mapped files, the binary's among them. 0 when the
	// kernel does not say (before Linux 4.5).
	Anon int64
}

// ProcMem reads pid's resident memory now.
func ProcMem(pid int) (Mem, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return Mem{}, fmt.Errorf("fleet: memory of %d: %w", pid, err)
	}
	return parseStatus(b)
}

func parseStatus(b []byte) (Mem, error) {
	var m Mem
	var found int
	for line := range bytes.Lines(b) {
		var dst *int64
		switch {
		case bytes.HasPrefix(line, []byte("VmRSS:")):
			dst = &m.RSS
		case bytes.HasPrefix(line, []byte("VmHWM:")):
			dst = &m.Peak
		case bytes.HasPrefix(line, []byte("RssAnon:")):
			dst = &m.Anon
			found-- // optional
		default:
			continue
		}
		f := bytes.Fields(line)
		if len(f) != 3 || string(f[2]) != "kB" {
			return m, fmt.Errorf("fleet: /proc status: unexpected line %q", line)
		}
		kb, err := strconv.ParseInt(string(f[1]), 10, 64)
		if err != nil {
			return m, fmt.Errorf("fleet: /proc status: %w", err)
		}
		*dst = kb << 10
		found++
	}
	if found != 2 {
		return m, fmt.Errorf("fleet: /proc status: VmRSS or VmHWM missing")
	}
	return m, nil
}

// ResetPeak sets pid's VmHWM back to its current RSS (writing 5 to
// /proc/PID/clear_refs, Linux 4.0 and later), so that the next ProcMem's
// Peak is the highest RSS of the window that starts now. It needs the
// right to write there (the process's owner).
func ResetPeak(pid int) error {
	if err := os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", pid), []byte("5"), 0); err != nil {
		return fmt.Errorf("fleet: reset the peak RSS of %d: %w", pid, err)
	}
	return nil
}
