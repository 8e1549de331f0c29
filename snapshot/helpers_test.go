package snapshot_test

import (
	"bytes"
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/snapshot"
)

// pod is a slim object as an informer would cache it.
type pod struct {
	Metadata struct {
		Name            string            `json:"name"`
		Namespace       string            `json:"namespace"`
		ResourceVersion string            `json:"resourceVersion"`
		Labels          map[string]string `json:"labels,omitempty"`
	} `json:"metadata"`
	Phase string `json:"phase"`
}

func mkPods(n int) []*pod {
	out := make([]*pod, n)
	for i := range out {
		p := &pod{Phase: "Running"}
		p.Metadata.Name = fmt.Sprintf("pod-%05d", i)
		p.Metadata.Namespace = "default"
		p.Metadata.ResourceVersion = fmt.Sprint(100 + i)
		p.Metadata.Labels = map[string]string{"app": "web", "shard": fmt.Sprint(i % 7)}
		out[i] = p
	}
	return out
}

var testID = snapshot.Identity{
	Server: "https://127.0.0.1:6443", Version: "v1", Resource: "pods", Namespace: "default",
	LabelSelector: "app=web", Type: "snapshot_test.pod",
}

func encode(t testing.TB, h snapshot.Header, items []*pod) []byte {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, snapshot.Encode(context.Background(), &b, h, items))
	return b.Bytes()
}

func decode(data []byte, size bool) (snapshot.Header, []*pod, error) {
	var opts snapshot.ReadOptions
	if size {
		opts.Size = int64(len(data))
	}
	return snapshot.Decode[pod](context.Background(), bytes.NewReader(data), testID, opts)
}

// requireReason checks that err is a *snapshot.Error with one of reasons.
func requireReason(t testing.TB, err error, reasons ...snapshot.Reason) snapshot.Reason {
	t.Helper()
	require.Error(t, err)
	r, ok := snapshot.ReasonOf(err)
	require.True(t, ok, "not a *snapshot.Error: %v", err)
	require.Contains(t, reasons, r, "%v", err)
	return r
}
