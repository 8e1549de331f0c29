package fleet_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/bench/fleet"
)

// agents is a fleet.Agents that records its calls.
type agents struct {
	calls   []string
	running bool
	updates atomic.Int64
	failAt  int // the Start call (1-based) that fails; 0: none
}

func (a *agents) Start(context.Context) (int, error) {
	a.calls = append(a.calls, "start")
	if a.failAt == len(a.calls) {
		return 0, errors.New("no server")
	}
	a.running = true
	return 7, nil
}

func (a *agents) Stop() error {
	a.calls = append(a.calls, "stop")
	a.running = false
	return nil
}

func (a *agents) Updates() int64 { return a.updates.Load() }
func (a *agents) Note() string   { return "note" }

// serve runs ServeChild over pipes and returns a function that sends a
// command and decodes the answer, and one that closes the input and
// returns what ServeChild returned.
func serve(t *testing.T, a fleet.Agents, timeout time.Duration) (call func(string) map[string]any, end func() error) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- fleet.ServeChild(context.Background(), inR, outW, a, timeout); outW.Close() }()
	sc := bufio.NewScanner(outR)
	call = func(line string) map[string]any {
		_, err := io.WriteString(inW, line+"\n")
		require.NoError(t, err)
		require.True(t, sc.Scan(), "no answer to %q", line)
		var m map[string]any
		require.NoError(t, json.Unmarshal(sc.Bytes(), &m))
		return m
	}
	end = func() error {
		inW.Close()
		for sc.Scan() {
		}
		return <-done
	}
	return call, end
}

func TestServeChild(t *testing.T) {
	a := &agents{}
	call, end := serve(t, a, time.Minute)
	r := call("restart")
	require.Equal(t, "error", r["event"], "a restart before a start")
	r = call("start")
	require.Equal(t, "synced", r["event"])
	require.EqualValues(t, 7, r["objects"])
	require.Equal(t, "note", r["note"])
	require.Equal(t, "error", call("start")["event"], "started twice")
	require.Equal(t, "synced", call("restart")["event"])
	require.Equal(t, []string{"start", "stop", "start"}, a.calls, "a restart stops every agent, then starts them")

	a.updates.Store(5)
	require.Equal(t, "updates", call("updates 5")["event"])
	require.Equal(t, "error", call("updates x")["event"])
	require.Equal(t, "error", call("dance")["event"])
	require.NoError(t, end())
	require.False(t, a.running, "closing the input stops the agents")
	require.Equal(t, "stop", a.calls[len(a.calls)-1])
}

// An update count never reached ends at the command's deadline with an
// error reply, and a failed start leaves nothing to stop.
func TestServeChildFailures(t *testing.T) {
	a := &agents{failAt: 1}
	call, end := serve(t, a, 50*time.Millisecond)
	r := call("start")
	require.Equal(t, "error", r["event"])
	require.Contains(t, r["err"], "no server")
	r = call("updates 1")
	require.Equal(t, "error", r["event"])
	require.True(t, strings.Contains(r["err"].(string), "0 updates of 1"), "%v", r["err"])
	require.NoError(t, end())
	require.Equal(t, []string{"start"}, a.calls, "nothing started, nothing stopped")
}
