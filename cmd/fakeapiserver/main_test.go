package main

import (
	"bufio"
	"context"
	"crypto/tls"
	"encoding/json"
	"flag"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestRunPrintsURLWritesKubeconfigAndStopsWithContext(t *testing.T) {
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"--kubeconfig", kubeconfig, "--token", "abc"}, pw, io.Discard)
		pw.Close()
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	require.NoError(t, err)
	url := strings.TrimSpace(line)
	require.True(t, strings.HasPrefix(url, "https://127.0.0.1:"), "a token means https (kubectl sends none over http): %s", url)

	cfg, err := os.ReadFile(kubeconfig)
	require.NoError(t, err)
	require.Contains(t, string(cfg), "server: "+url)
	require.Contains(t, string(cfg), `token: "abc"`)

	insecure := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	defer insecure.CloseIdleConnections()
	resp, err := insecure.Get(url + "/api/v1/pods")
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, 401, resp.StatusCode, "the token is required")

	cancel()
	require.NoError(t, <-done)
}

// Issue 23: only the demo's embedded server could serve shard selectors.
func TestShardSelectorsFlagServesShardedLists(t *testing.T) {
	for _, on := range []bool{false, true} {
		ctx, cancel := context.WithCancel(context.Background())
		pr, pw := io.Pipe()
		done := make(chan error, 1)
		args := []string{}
		if on {
			args = append(args, "-shard-selectors")
		}
		go func() {
			done <- run(ctx, args, pw, io.Discard)
			pw.Close()
		}()
		line, err := bufio.NewReader(pr).ReadString('\n')
		require.NoError(t, err)
		sel := url.QueryEscape("shardRange(object.metadata.uid,'0x0000000000000000','0x8000000000000000')")
		resp, err := http.Get(strings.TrimSpace(line) + "/api/v1/namespaces/default/configmaps?shardSelector=" + sel)
		require.NoError(t, err)
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		require.NoError(t, err)
		require.Equal(t, 200, resp.StatusCode, string(body))
		if on {
			require.Contains(t, string(body), `"shardInfo":{"selector":"shardRange(`, "a sharded list says which shard it holds")
		} else {
			require.NotContains(t, string(body), "shardInfo", "without the flag the parameter is ignored")
		}
		cancel()
		require.NoError(t, <-done)
	}
}

func TestRunRejectsUnknownFlags(t *testing.T) {
	require.Error(t, run(context.Background(), []string{"--nope"}, io.Discard, io.Discard))
}

// -h prints the usage and is flag.ErrHelp, which main turns into exit 0.
func TestHelpIsNotAFailure(t *testing.T) {
	var usage strings.Builder
	require.ErrorIs(t, run(context.Background(), []string{"-h"}, io.Discard, &usage), flag.ErrHelp)
	require.Contains(t, usage.String(), "-kubeconfig")
}

// Issue 31: kubectl rollout status against the binary needs the status loop.
func TestSimulateStatusFlagRunsThePods(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"-simulate-status"}, pw, io.Discard)
		pw.Close()
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	require.NoError(t, err)
	base := strings.TrimSpace(line) + "/api/v1/namespaces/default/pods"
	resp, err := http.Post(base, "application/json", strings.NewReader(`{"metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"x"}]}}`))
	require.NoError(t, err)
	var created struct {
		Metadata struct{ ResourceVersion string } `json:"metadata"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&created))
	resp.Body.Close()
	require.Equal(t, 201, resp.StatusCode)
	resp, err = http.Get(base + "?watch=1&resourceVersion=" + created.Metadata.ResourceVersion)
	require.NoError(t, err)
	ev, err := bufio.NewReader(resp.Body).ReadString('\n')
	resp.Body.Close()
	require.NoError(t, err)
	require.Contains(t, ev, `"phase":"Running"`, "the loop's write is the next event")
	cancel()
	require.NoError(t, <-done)
}
