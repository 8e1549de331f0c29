package storage

import (
	"fmt"
	"testing"

	"github.com/zerokube/zerokube/meta"
)

// The per-node agent fleet: every agent (a kubelet, a CNI or log daemon)
// lists and watches the pods of its own node with fieldSelector
// spec.nodeName=<node>. These benchmarks are one such agent's LIST and the
// store's fan-out of created pods to one watcher per node.
const (
	benchPods  = 10_000
	benchNodes = 100
)

// benchPodsResource is the pods resource with the field selectors the
// server registers for it (resources.go).
func benchPodsResource() *Resource {
	return &Resource{GVR: meta.GVR{Version: "v1", Resource: "pods"}, Kind: "Pod", Namespaced: true,
		FieldSelectors: []string{"spec.nodeName", "spec.restartPolicy", "spec.schedulerName",
			"spec.serviceAccountName", "status.phase", "status.podIP", "status.nominatedNodeName"}}
}

// benchPod is a pod of about 1.5 KB, scheduled to node n.
func benchPod(name string, n int) map[string]any {
	return map[string]any{
		"metadata": map[string]any{"name": name, "namespace": "default", "uid": "6f0b5d9e-2a61-4c1f-9a55-" + name,
			"labels":      map[string]any{"app": "web", "pod-template-hash": "7d4b9c8f5"},
			"annotations": map[string]any{"kubectl.kubernetes.io/restartedAt": "2026-12-04T00:00:00Z"}},
		"spec": map[string]any{
			"nodeName": fmt.Sprintf("node-%d", n), "restartPolicy": "Always", "schedulerName": "default-scheduler",
			"serviceAccountName": "default",
			"containers": []any{map[string]any{
				"name": "web", "image": "registry.k8s.io/nginx:1.27",
				"ports":     []any{map[string]any{"containerPort": 8080.0, "protocol": "TCP"}},
				"env":       []any{map[string]any{"name": "MODE", "value": "production"}},
				"resources": map[string]any{"requests": map[string]any{"cpu": "100m", "memory": "128Mi"}},
				"volumeMounts": []any{map[string]any{"name": "kube-api-access", "readOnly": true,
					"mountPath": "/var/run/secrets/kubernetes.io/serviceaccount"}},
			}},
			"volumes": []any{map[string]any{"name": "kube-api-access", "projected": map[string]any{
				"sources": []any{map[string]any{"serviceAccountToken": map[string]any{"path": "token", "expirationSeconds": 3607.0}}}}}},
		},
		"status": map[string]any{"phase": "Running", "podIP": "10.0.7.12", "hostIP": "192.168.0.7",
			"conditions": []any{
				map[string]any{"type": "Ready", "status": "True", "lastTransitionTime": "2026-12-04T00:00:05Z"},
				map[string]any{"type": "PodScheduled", "status": "True", "lastTransitionTime": "2026-12-04T00:00:01Z"},
			}},
	}
}

func benchStore(b *testing.B) (*Store, *Resource) {
	b.Helper()
	s, _ := newTestStore(Options{HistoryEvents: 100})
	s.opts.WatchBuffer = 1000
	return s, benchPodsResource()
}

func nodeFilter(b *testing.B, n int) Filter {
	b.Helper()
	f, err := meta.ParseFieldSelector(fmt.Sprintf("spec.nodeName=node-%d", n))
	if err != nil {
		b.Fatal(err)
	}
	return Filter{Field: f}
}

// BenchmarkListByNode is one agent's LIST of its node's pods out of 10,000
// on 100 nodes: one op is the whole LIST, served from the cached snapshot.
func BenchmarkListByNode(b *testing.B) {
	s, pods := benchStore(b)
	for i := range benchPods {
		if _, err := s.Create(pods, benchPod(fmt.Sprintf("p%05d", i), i%benchNodes)); err != nil {
			b.Fatal(err)
		}
	}
	f := nodeFilter(b, 7)
	b.ReportAllocs()
	for b.Loop() {
		p, err := s.List(b.Context(), pods, &f, ListOptions{RV: -1})
		if err != nil {
			b.Fatal(err)
		}
		if len(p.Items) != benchPods/benchNodes {
			b.Fatalf("listed %d pods of node-7, want %d", len(p.Items), benchPods/benchNodes)
		}
	}
}

// BenchmarkWatchFanOutByNode is 100 watchers, one per node, while pods are
// created round the nodes: one op is one create offered to every watcher
// and read by the one whose node it is.
func BenchmarkWatchFanOutByNode(b *testing.B) {
	s, pods := benchStore(b)
	ws := make([]*Watcher, benchNodes)
	for n := range ws {
		st, err := s.Watch(b.Context(), pods, nodeFilter(b, n), WatchOptions{RV: -1})
		if err != nil {
			b.Fatal(err)
		}
		ws[n] = st.W
		b.Cleanup(func() { s.RemoveWatcher(st.W) })
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if _, err := s.Create(pods, benchPod(fmt.Sprintf("p%07d", i), i%benchNodes)); err != nil {
			b.Fatal(err)
		}
		select {
		case <-ws[i%benchNodes].Frames():
		default:
			b.Fatalf("node-%d's watcher did not get its pod", i%benchNodes)
		}
		i++
	}
}
