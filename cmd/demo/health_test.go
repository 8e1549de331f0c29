package main

import (
	"io"
	"net/http"
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestServeHealthAnswersHealthzAsJSON: --serve-health serves the
// informer's health at /healthz, 200 once it has synced.
func TestServeHealthAnswersHealthzAsJSON(t *testing.T) {
	d := startDemo(t, "--churn=false", "--serve-health", "127.0.0.1:0")
	url := waitFor(t, d.stderr, regexp.MustCompile(`demo: health at (\S+)`))[1]
	waitFor(t, d.stderr, regexp.MustCompile(`demo: synced`))
	resp, err := http.Get(url)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode, "%s", body)
	require.Equal(t, "application/json", resp.Header.Get("Content-Type"))
	require.Contains(t, string(body), `"synced":true`)
	require.Equal(t, 0, d.stop(t))
}
