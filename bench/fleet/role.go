package fleet

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"time"
)

// RoleEnv names the role a process re-run by the driver plays: "fake"
// (ServeFake, the kubeconfig path as its one argument) or "zk" (a child
// of zerokube agents, ChildConfig's flags as its arguments). The fleet
// command and the benchmark's test binary check it first thing, so that
// one binary is the driver, the fake and zerokube's child.
const RoleEnv = "ZEROKUBE_FLEET_ROLE"

// phaseTimeout bounds each command of a child.
const phaseTimeout = 10 * time.Minute

// RunRole plays the role RoleEnv names with args, and reports whether
// there was one; a process that played a role should exit.
func RunRole(ctx context.Context, args []string) (bool, error) {
	switch os.Getenv(RoleEnv) {
	case "":
		return false, nil
	case "fake":
		if len(args) != 1 {
			return true, fmt.Errorf("fleet: the fake's role takes the kubeconfig path, got %q", args)
		}
		return true, ServeFake(ctx, args[0], os.Stdin, os.Stdout)
	case "zk":
		c, err := ParseChildConfig(args)
		if err != nil {
			return true, err
		}
		z, err := NewZK(c)
		if err != nil {
			return true, err
		}
		return true, ServeChild(ctx, os.Stdin, os.Stdout, z, phaseTimeout)
	}
	return true, fmt.Errorf("fleet: unknown %s %q", RoleEnv, os.Getenv(RoleEnv))
}

// Self runs the current executable in role with args.
func Self(role string, args ...string) (*exec.Cmd, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("fleet: %w", err)
	}
	cmd := exec.Command(exe, args...)
	cmd.Env = append(os.Environ(), RoleEnv+"="+role)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL} // never outlive the driver
	return cmd, nil
}

// ZKModes are zerokube's modes, run by the current executable: a LIST
// with snapshots (resumed over the TLS session saved with them, or, as
// before issue #40, without it), a LIST, and a streaming list.
func ZKModes() []Mode {
	cmd := func(c ChildConfig) (*exec.Cmd, error) { return Self("zk", c.Args()...) }
	return []Mode{
		{Name: "zk-snap", Opts: "snap", Command: cmd},
		{Name: "zk-snap-notls", Opts: "snap,notls", Command: cmd},
		{Name: "zk", Opts: "", Command: cmd},
		{Name: "zk-stream", Opts: "stream", Command: cmd},
	}
}

// FakeCommand is the current executable as the fake.
func FakeCommand(kubeconfig string) (*exec.Cmd, error) { return Self("fake", kubeconfig) }
