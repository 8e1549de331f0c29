package fakeapiserver_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/apiclient"
	"github.com/zerokube/zerokube/fakeapiserver"
	"github.com/zerokube/zerokube/fakeapiserver/fakeapiservertest"
	"github.com/zerokube/zerokube/meta"
	"github.com/zerokube/zerokube/watchstream"
)

// slimObject keeps metadata only, the way an informer user's smallest
// type does.
type slimObject struct {
	meta.SlimMeta `json:"metadata"`
}

// fullPod and fullDeployment declare the spec and status a bookmark's empty
// object now carries (containers null, selector null, replicas 0), so that
// decoding it exercises those fields rather than skipping them.
type fullPod struct {
	meta.TypeMeta
	meta.ObjectMeta `json:"metadata"`
	Spec            struct {
		Containers []struct {
			Name  string `json:"name"`
			Image string `json:"image"`
		} `json:"containers"`
	} `json:"spec"`
	Status struct {
		Phase     string    `json:"phase"`
		StartTime time.Time `json:"startTime"`
	} `json:"status"`
}

type fullDeployment struct {
	meta.TypeMeta
	meta.ObjectMeta `json:"metadata"`
	Spec            struct {
		Replicas *int32 `json:"replicas"`
		Selector *struct {
			MatchLabels map[string]string `json:"matchLabels"`
		} `json:"selector"`
		Template struct {
			Metadata meta.ObjectMeta `json:"metadata"`
		} `json:"template"`
	} `json:"spec"`
	Status struct {
		Replicas int32 `json:"replicas"`
	} `json:"status"`
}

// A bookmark's object is the kind's empty object (a pod's carries
// spec.containers null and status {}, a deployment's spec.replicas 0 and
// selector null): slim types, full types and meta.Raw all decode it, and
// the stream still sees its resourceVersion and initial-events-end marker.
func TestBookmarksOfEveryBuiltinKindDecodeIntoSlimFullAndRawTypes(t *testing.T) {
	srv := fakeapiservertest.Start(t, fakeapiserver.Options{Logger: quiet()})
	c, err := apiclient.New(fakeapiservertest.ClientConfig(srv))
	require.NoError(t, err)
	defer c.CloseIdleConnections()
	gvrs := []meta.GVR{podsGVR, {Version: "v1", Resource: "configmaps"}, {Version: "v1", Resource: "secrets"},
		{Version: "v1", Resource: "services"}, {Version: "v1", Resource: "events"}, {Version: "v1", Resource: "nodes"},
		{Version: "v1", Resource: "namespaces"}, {Group: "apps", Version: "v1", Resource: "deployments"},
		{Group: "apps", Version: "v1", Resource: "replicasets"},
		{Group: "coordination.k8s.io", Version: "v1", Resource: "leases"}}
	for _, gvr := range gvrs {
		ref := apiclient.Ref{GVR: gvr}
		t.Run(gvr.Resource, func(t *testing.T) {
			slim := firstWatchEvent[slimObject](t, c, ref)
			require.NotEmpty(t, slim.Object.ResourceVersion)
			raw := firstWatchEvent[meta.Raw](t, c, ref)
			require.Equal(t, slim.ResourceVersion, raw.Object.ResourceVersion)
			require.NotEmpty(t, raw.Object.Kind)
			pod := firstWatchEvent[fullPod](t, c, ref)
			require.Empty(t, pod.Object.Spec.Containers)
			require.True(t, pod.Object.Status.StartTime.IsZero())
			d := firstWatchEvent[fullDeployment](t, c, ref)
			require.Nil(t, d.Object.Spec.Selector)
			if gvr.Resource == "deployments" {
				require.NotNil(t, d.Object.Spec.Replicas, "kube-apiserver's empty deployment says replicas 0")
				require.Zero(t, *d.Object.Spec.Replicas)
			}
		})
	}
}

// firstWatchEvent opens a streaming list of an empty collection (or one
// whose objects the field selector leaves out) and returns its first
// event, which must be the bookmark that ends the initial events.
func firstWatchEvent[T any, P meta.PtrObject[T]](t *testing.T, c *apiclient.Client, ref apiclient.Ref) watchstream.Event[P] {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), shortWait)
	defer cancel()
	s, err := apiclient.Watch[T, P](ctx, c, ref, apiclient.WatchOptions{SendInitialEvents: true,
		AllowWatchBookmarks: true, FieldSelector: "metadata.name=none-such"})
	require.NoError(t, err)
	defer s.Stop()
	ev, err := s.Next()
	require.NoError(t, err, "decoding into %T", P(nil))
	require.Equal(t, meta.Bookmark, ev.Type)
	require.True(t, ev.InitialEventsEnd)
	require.NotEmpty(t, ev.ResourceVersion)
	return ev
}
