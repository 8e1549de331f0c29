package fleet_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/bench/fleet"
)

// agentScript writes a shell script that prints lines and then waits to
// be stopped, in the process MeasureFootprint started (exec).
func agentScript(t *testing.T, lines string) string {
	p := filepath.Join(t.TempDir(), "agent")
	require.NoError(t, os.WriteFile(p, []byte("#!/bin/sh\nprintf '"+lines+"'\nexec sleep 60\n"), 0o755))
	return p
}

func TestMeasureFootprint(t *testing.T) {
	bin := agentScript(t, `synced in 3ms\n3 pods on n\n4 pods on n\n`)
	f, err := fleet.MeasureFootprint(context.Background(), bin, nil, 200*time.Millisecond)
	require.NoError(t, err)
	st, err := os.Stat(bin)
	require.NoError(t, err)
	require.Equal(t, st.Size(), f.Binary)
	require.Equal(t, 4, f.Pods, "the last count printed")
	require.Positive(t, f.RSSSynced)
	require.Positive(t, f.RSSIdle)
	require.GreaterOrEqual(t, f.Idle, 0.2)
	require.Positive(t, f.ToSynced)

	_, err = fleet.MeasureFootprint(context.Background(), agentScript(t, `hello\n`), nil, time.Millisecond)
	require.ErrorContains(t, err, `printed "hello" before its synced line`)
}

// TestAgentFlags: the agents get the kubeconfig's server, token and CA as
// an in-cluster agent gets them, as files.
func TestAgentFlags(t *testing.T) {
	dir := t.TempDir()
	kc := filepath.Join(dir, "kubeconfig")
	require.NoError(t, os.WriteFile(kc, []byte(`current-context: c
contexts: [{name: c, context: {cluster: k, user: u}}]
clusters: [{name: k, cluster: {server: "https://127.0.0.1:6443", certificate-authority-data: Q0EtUEVN}}]
users: [{name: u, user: {token: tok}}]
`), 0o600))
	flags, err := fleet.AgentFlags(kc, dir)
	require.NoError(t, err)
	token, ca := filepath.Join(dir, "token"), filepath.Join(dir, "ca.crt")
	require.Equal(t, []string{"-server", "https://127.0.0.1:6443", "-token-file", token, "-ca-file", ca}, flags)
	for file, want := range map[string]string{token: "tok", ca: "CA-PEM"} {
		b, err := os.ReadFile(file)
		require.NoError(t, err)
		require.Equal(t, want, string(b))
	}
}
