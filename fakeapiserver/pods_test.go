package fakeapiserver

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestPullPolicyFollowsTheTag(t *testing.T) {
	for image, want := range map[string]string{
		"nginx": "Always", "nginx:latest": "Always", "nginx:1.27": "IfNotPresent",
		"localhost:5000/app": "Always", "localhost:5000/app:v1": "IfNotPresent", "app@sha256:abc": "IfNotPresent",
	} {
		require.Equal(t, want, pullPolicy(image), image)
	}
}

func TestQoSClass(t *testing.T) {
	pod := func(res ...map[string]any) object {
		var cs []any
		for _, r := range res {
			cs = append(cs, map[string]any{"name": "c", "resources": r})
		}
		return object{"spec": map[string]any{"containers": cs}}
	}
	both := map[string]any{"cpu": "1", "memory": "1Gi"}
	require.Equal(t, "BestEffort", qosClass(pod(map[string]any{})))
	require.Equal(t, "Guaranteed", qosClass(pod(map[string]any{"limits": both})))
	require.Equal(t, "Guaranteed", qosClass(pod(map[string]any{"limits": both, "requests": both})))
	require.Equal(t, "Burstable", qosClass(pod(map[string]any{"requests": both})))
	require.Equal(t, "Burstable", qosClass(pod(map[string]any{"limits": both}, map[string]any{})))
}
