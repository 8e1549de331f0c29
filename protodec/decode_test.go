package protodec

import (
	"testing"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/kubeproto"
	"github.com/zerokube/zerokube/meta"
)

const podJSON = `{
  "metadata": {"name": "web-1", "namespace": "shop", "uid": "u-1", "resourceVersion": "42",
    "generateName": "", "generation": 3,
    "creationTimestamp": "2026-01-02T03:04:05Z",
    "labels": {"app": "web", "tier": "front"},
    "annotations": {"note": "x"},
    "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web", "uid": "rs-1", "controller": true}],
    "finalizers": ["a", "b"],
    "managedFields": [{"manager": "kubectl", "operation": "Update", "apiVersion": "v1"}]},
  "spec": {"nodeName": "node-7", "priority": 0, "terminationGracePeriodSeconds": 30,
    "containers": [{"name": "app", "image": "nginx", "ports": [{"containerPort": 80, "protocol": "TCP"}],
      "resources": {"limits": {"cpu": "500m"}, "requests": {"memory": "64Mi"}}}]},
  "status": {"phase": "Running", "podIP": "10.0.0.1", "startTime": "2026-01-02T03:04:06Z",
    "conditions": [{"type": "Ready", "status": "True", "lastTransitionTime": "2026-01-02T03:04:07Z"}]}
}`

// slimPod is what a user who reads little declares.
type slimPod struct {
	meta.TypeMeta
	meta.SlimMeta `json:"metadata"`
	Spec          struct {
		NodeName string `json:"nodeName"`
	} `json:"spec"`
	Status struct {
		Phase string `json:"phase"`
		PodIP string `json:"podIP"`
	} `json:"status"`
}

// wider declares more: pointers, slices of structs, maps, times.
type wider struct {
	meta.ObjectMeta `json:"metadata"`
	Spec            struct {
		NodeName   string `json:"nodeName"`
		Priority   *int32 `json:"priority"`
		Grace      *int64 `json:"terminationGracePeriodSeconds"`
		Containers []struct {
			Name  string `json:"name"`
			Image string `json:"image"`
			Ports []struct {
				ContainerPort int32  `json:"containerPort"`
				Protocol      string `json:"protocol"`
			} `json:"ports"`
			Resources struct {
				Limits   map[string]string `json:"limits"`
				Requests map[string]string `json:"requests"`
			} `json:"resources"`
		} `json:"containers"`
	} `json:"spec"`
	Status struct {
		Phase      string     `json:"phase"`
		StartTime  *time.Time `json:"startTime"`
		Conditions []struct {
			Type               string    `json:"type"`
			LastTransitionTime time.Time `json:"lastTransitionTime"`
		} `json:"conditions"`
	} `json:"status"`
}

func podMessage(t testing.TB) kubeproto.Message {
	m, ok := kubeproto.MessageFor("v1", "Pod")
	require.True(t, ok)
	return m
}

// encodeJSON turns a JSON fixture into the protobuf of message m, by
// kubeproto's transcoder.
func encodeJSON(t testing.TB, m kubeproto.Message, j string) []byte {
	b, err := kubeproto.AppendProto(nil, m, []byte(j))
	require.NoError(t, err)
	return b
}

func TestASlimStructGetsWhatTheJSONPathGives(t *testing.T) {
	m := podMessage(t)
	b := encodeJSON(t, m, podJSON)
	var fromJSON, fromProto slimPod
	require.NoError(t, json.Unmarshal([]byte(podJSON), &fromJSON))
	require.NoError(t, New(Options{}).Unmarshal(m, b, &fromProto))
	require.Equal(t, fromJSON, fromProto)
	require.Equal(t, "node-7", fromProto.Spec.NodeName)
}

func TestPointersSlicesMapsAndTimesGetWhatTheJSONPathGives(t *testing.T) {
	m := podMessage(t)
	b := encodeJSON(t, m, podJSON)
	var fromJSON, fromProto wider
	require.NoError(t, json.Unmarshal([]byte(podJSON), &fromJSON, meta.SkipManagedFields()))
	require.NoError(t, New(Options{SkipManagedFields: true}).Unmarshal(m, b, &fromProto))
	require.Equal(t, fromJSON, fromProto)
	require.NotNil(t, fromProto.Spec.Priority, "a pointer to zero is not a nil pointer")
}

func TestASharerSharesEqualLabelMapsAcrossObjects(t *testing.T) {
	m := podMessage(t)
	b := encodeJSON(t, m, podJSON)
	d := New(Options{Sharer: meta.NewSharer(meta.ShareMaps)})
	var a, c slimPod
	require.NoError(t, d.Unmarshal(m, b, &a))
	require.NoError(t, d.Unmarshal(m, b, &c))
	require.Equal(t, map[string]string{"app": "web", "tier": "front"}, a.Labels)
	a.Labels["probe"] = "1" // test only: shared maps are read-only
	require.Equal(t, "1", c.Labels["probe"], "the second object holds the first one's map")
}
