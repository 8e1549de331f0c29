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
