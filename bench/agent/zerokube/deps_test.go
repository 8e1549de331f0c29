package main

import (
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestLinksOnlyWhatItUses: the minimal agent, built as the footprint
// benchmark builds it (bench/fleet/run.sh: -tags zerokube_stdgzip), links
// no package it has no use for in a pod: no kubeconfig reader and its YAML
// parser (it takes apiclient.InCluster), no websocket library (it watches
// over chunked HTTP), no second inflater (its replies are too small to be
// gzipped).
func TestLinksOnlyWhatItUses(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-tags", "zerokube_stdgzip", ".").Output()
	if err != nil {
		t.Skipf("go list: %v (needs the go command)", err)
	}
	deps := strings.Fields(string(out))
	require.True(t, slices.Contains(deps, "github.com/zerokube/zerokube/informer"), "go list lists the agent's imports:\n%s", out)
	for _, unused := range []string{
		"github.com/zerokube/zerokube/apiclient/kubeconfig", "go.yaml.in/yaml/v3",
		"github.com/zerokube/zerokube/apiclient/websocket", "github.com/gorilla/websocket",
		"github.com/klauspost/compress/gzip",
	} {
		require.False(t, slices.Contains(deps, unused), "the agent links %s", unused)
	}
}
