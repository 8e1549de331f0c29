package fakeapiserver

import (
	"context"
	"fmt"
	"hash/fnv"
	"reflect"

	"github.com/zerokube/zerokube/fakeapiserver/internal/storage"
	"github.com/zerokube/zerokube/meta"
)

// The status loop (Options.SimulateStatus): what a kubelet and the
// deployment and replica set controllers would write, so that kubectl
// rollout status and kubectl wait --for=condition=Ready finish against
// the fake. It is level-triggered: every write of a pod, Deployment or
// ReplicaSet kicks it, and it writes, through the status subresource,
// each status that differs from what its spec asks for: a Pending pod
// becomes Running with every container ready (once: a later status a
// client writes stays), a Deployment's and a ReplicaSet's status is
// always the one for its spec, as their controllers keep it. It creates
// no pods and no replica sets: a Deployment's counts are its spec's, as
// if every replica were up. Each pass lists every pod, Deployment and
// ReplicaSet: a test tool, not one for thousands of objects.

// kickStatus wakes the status loop after a write of res.
func (s *Server) kickStatus(res *Resource) {
	if s.statusKick == nil || !statusLooped(res) {
		return
	}
	select {
	case s.statusKick <- struct{}{}:
	default: // a kick is pending: the loop will see this write too
	}
}

func statusLooped(res *Resource) bool {
	return isCore(res, "pods") || res.GVR.Group == "apps" && (res.GVR.Resource == "deployments" || res.GVR.Resource == "replicasets")
}

// runStatusLoop reconciles until ctx ends.
func (s *Server) runStatusLoop(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.statusKick:
		}
		for _, gvr := range []meta.GVR{{Version: "v1", Resource: "pods"},
			{Group: "apps", Version: "v1", Resource: "replicasets"}, {Group: "apps", Version: "v1", Resource: "deployments"}} {
			s.reconcileAll(ctx, s.reg.get(gvr))
		}
	}
}

func (s *Server) reconcileAll(ctx context.Context, res *Resource) {
	if res == nil {
		return
	}
	p, err := s.store.List(ctx, res, &storage.Filter{}, storage.ListOptions{RV: -1})
	if err != nil {
		s.log.Debug("fakeapiserver: status loop: list", "resource", res.Qualified(), "error", err)
		return
	}
	for _, o := range p.Items {
		raw := o.Raw()
		if raw.DeletionTimestamp != nil {
			continue
		}
		wm := writeMeta{manager: "kube-controller-manager", operation: "Update", status: true}
		if isCore(res, "pods") {
			wm.manager = "kubelet"
		}
		_, err := s.update(res, raw.Namespace, raw.Name, wm, func(cur object) (object, error) {
			want := s.desiredStatus(res, cur)
			if want == nil || sameStatus(cur["status"], want) {
				return nil, errStatusCurrent
			}
			cur["status"] = want
			return cur, nil
		})
		if err != nil && err != errStatusCurrent {
			s.log.Debug("fakeapiserver: status loop: write", "resource", res.Qualified(), "name", raw.Name, "error", err)
		}
	}
}

// errStatusCurrent ends an update that has nothing to write.
var errStatusCurrent = fmt.Errorf("fakeapiserver: status is current")

// sameStatus compares statuses without their timestamps.
func sameStatus(cur, want any) bool {
	return reflect.DeepEqual(normalize(stripTimes(cur)), normalize(stripTimes(want)))
}

func stripTimes(v any) any {
	switch x := v.(type) {
	case map[string]any:
		c := make(map[string]any, len(x))
		for k, e := range x {
			switch k {
			case "lastTransitionTime", "lastUpdateTime", "lastProbeTime", "startTime", "startedAt":
				continue
			}
			c[k] = stripTimes(e)
		}
		return c
	case []any:
		c := make([]any, len(x))
		for i, e := range x {
			c[i] = stripTimes(e)
		}
		return c
	}
	return v
}

// desiredStatus is the status the loop wants m to have, nil for none.
func (s *Server) desiredStatus(res *Resource, m object) map[string]any {
	now := s.nowString()
	old, _ := m["status"].(map[string]any)
	cond := func(typ, status, reason, message string) map[string]any {
		c := map[string]any{"type": typ, "status": status, "lastTransitionTime": now}
		if reason != "" {
			c["reason"] = reason
		}
		if message != "" {
			c["message"] = message
		}
		for _, oc := range listOf(old["conditions"]) {
			if oc["type"] == typ && oc["status"] == status && oc["lastTransitionTime"] != nil {
				c["lastTransitionTime"] = oc["lastTransitionTime"] // no transition
			}
		}
		return c
	}
	spec, _ := m["spec"].(map[string]any)
	gen := storage.MetadataOf(m)["generation"]
	switch {
	case isCore(res, "pods"):
		if phase := old["phase"]; phase != nil && phase != "Pending" {
			return nil // started already: what clients write next (Failed, not ready) stays
		}
		return runningPod(spec, old, now, cond)
	case res.GVR.Resource == "replicasets":
		n := replicasOf(spec)
		st := map[string]any{"replicas": n, "observedGeneration": gen}
		if n > 0 {
			st["fullyLabeledReplicas"], st["readyReplicas"], st["availableReplicas"] = n, n, n
		}
		return st
	case res.GVR.Resource == "deployments":
		n := replicasOf(spec)
		st := map[string]any{"observedGeneration": gen}
		if n > 0 {
			st["replicas"], st["updatedReplicas"], st["readyReplicas"], st["availableReplicas"] = n, n, n, n
		}
		// The deployment controller's conditions once a rollout is
		// complete (pkg/controller/deployment/util: MinimumReplicasAvailable,
		// NewReplicaSetAvailable).
		available := cond("Available", "True", "MinimumReplicasAvailable", "Deployment has minimum availability.")
		progressing := cond("Progressing", "True", "NewReplicaSetAvailable",
			fmt.Sprintf("ReplicaSet %q has successfully progressed.", storage.Str(storage.MetadataOf(m), "name")+"-"+templateHash(spec)))
		for _, c := range []map[string]any{available, progressing} {
			c["lastUpdateTime"] = c["lastTransitionTime"]
		}
		st["conditions"] = []any{available, progressing}
		return st
	}
	return nil
}

// runningPod is a pod's status once the kubelet has started every
// container and they are ready.
func runningPod(spec, old map[string]any, now string, cond func(typ, status, reason, message string) map[string]any) map[string]any {
	st := map[string]any{"phase": "Running", "qosClass": old["qosClass"], "hostIP": "10.0.0.1",
		"hostIPs": []any{map[string]any{"ip": "10.0.0.1"}}, "podIP": "10.244.0.10", "podIPs": []any{map[string]any{"ip": "10.244.0.10"}},
		"startTime": now}
	if t := old["startTime"]; t != nil {
		st["startTime"] = t
	}
	st["conditions"] = []any{cond("PodReadyToStartContainers", "True", "", ""), cond("Initialized", "True", "", ""),
		cond("Ready", "True", "", ""), cond("ContainersReady", "True", "", ""), cond("PodScheduled", "True", "", "")}
	var statuses []any
	oldByName := map[any]map[string]any{}
	for _, c := range listOf(old["containerStatuses"]) {
		oldByName[c["name"]] = c
	}
	for _, c := range listOf(spec["containers"]) {
		started := now
		if oc := oldByName[c["name"]]; oc != nil {
			if t, ok := at(oc, "state", "running", "startedAt"); ok {
				started = t
			}
		}
		statuses = append(statuses, map[string]any{"name": c["name"], "image": c["image"], "imageID": "",
			"ready": true, "started": true, "restartCount": int64(0),
			"state": map[string]any{"running": map[string]any{"startedAt": started}}})
	}
	st["containerStatuses"] = statuses
	return st
}

func at(m map[string]any, path ...string) (string, bool) {
	for _, k := range path[:len(path)-1] {
		m, _ = m[k].(map[string]any)
	}
	v, ok := m[path[len(path)-1]].(string)
	return v, ok
}

func listOf(v any) []map[string]any {
	l, _ := v.([]any)
	out := make([]map[string]any, 0, len(l))
	for _, e := range l {
		if m, ok := e.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

func replicasOf(spec map[string]any) int64 {
	if f, ok := normalize(spec["replicas"]).(float64); ok {
		return int64(f)
	}
	return 1
}

// templateHash names the ReplicaSet a Deployment's template would get: a
// hash of the template, as the pod-template-hash label (not the same
// digits as the controller's, which hashes the Go struct).
func templateHash(spec map[string]any) string {
	h := fnv.New32a()
	fmt.Fprintf(h, "%v", normalize(spec["template"]))
	const alphanums = "bcdfghjklmnpqrstvwxz2456789"
	v := h.Sum32()
	out := make([]byte, 0, 10)
	for range 10 {
		out = append(out, alphanums[v%uint32(len(alphanums))])
		v /= uint32(len(alphanums))
	}
	return string(out)
}
