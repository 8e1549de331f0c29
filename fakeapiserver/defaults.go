package fakeapiserver

import (
	"fmt"

	"github.com/zerokube/zerokube/fakeapiserver/internal/storage"
)

// defaultWorkload applies the decode-time defaults kube-apiserver gives
// the kinds kubectl's columns and describe read (pkg/apis/apps/v1,
// batch/v1 and core/v1 defaults.go): a Deployment's strategy, limits and
// deadline, every pod template's pod-spec defaults, a Job's counts, a
// Secret's type, a Service's type, affinity and port protocols.
func defaultWorkload(res *Resource, m object) {
	spec, _ := m["spec"].(map[string]any)
	switch {
	case isCore(res, "secrets"):
		setDefault(m, "type", "Opaque")
		return
	case isCore(res, "services"):
		if spec != nil {
			defaultServiceSpec(spec)
		}
		return
	}
	if spec == nil || !hasPodTemplate(res) {
		return
	}
	if tmpl, ok := spec["template"].(map[string]any); ok {
		if ps, ok := tmpl["spec"].(map[string]any); ok {
			defaultPodSpec(ps)
		}
	}
	switch res.GVR.Resource {
	case "deployments": // SetDefaults_Deployment
		setDefault(spec, "replicas", int64(1))
		strategy, _ := spec["strategy"].(map[string]any)
		if strategy == nil {
			strategy = map[string]any{}
			spec["strategy"] = strategy
		}
		setDefault(strategy, "type", "RollingUpdate")
		if strategy["type"] == "RollingUpdate" {
			ru, _ := strategy["rollingUpdate"].(map[string]any)
			if ru == nil {
				ru = map[string]any{}
				strategy["rollingUpdate"] = ru
			}
			setDefault(ru, "maxUnavailable", "25%")
			setDefault(ru, "maxSurge", "25%")
		}
		setDefault(spec, "revisionHistoryLimit", int64(10))
		setDefault(spec, "progressDeadlineSeconds", int64(600))
	case "replicasets":
		setDefault(spec, "replicas", int64(1))
	case "statefulsets": // SetDefaults_StatefulSet
		setDefault(spec, "replicas", int64(1))
		setDefault(spec, "podManagementPolicy", "OrderedReady")
		setDefault(spec, "updateStrategy", map[string]any{"type": "RollingUpdate", "rollingUpdate": map[string]any{"partition": int64(0)}})
		setDefault(spec, "revisionHistoryLimit", int64(10))
		setDefault(spec, "persistentVolumeClaimRetentionPolicy", map[string]any{"whenDeleted": "Retain", "whenScaled": "Retain"})
	case "jobs": // SetDefaults_Job
		if spec["completions"] == nil && spec["parallelism"] == nil {
			spec["completions"] = int64(1)
		}
		setDefault(spec, "parallelism", int64(1))
		setDefault(spec, "backoffLimit", int64(6))
		setDefault(spec, "completionMode", "NonIndexed")
		setDefault(spec, "suspend", false)
		if spec["podFailurePolicy"] == nil {
			setDefault(spec, "podReplacementPolicy", "TerminatingOrFailed")
		}
	}
}

// hasPodTemplate reports the built-in kinds whose spec.template is a pod
// template.
func hasPodTemplate(res *Resource) bool {
	switch res.GVR.Group + "/" + res.GVR.Resource {
	case "apps/deployments", "apps/replicasets", "apps/statefulsets", "apps/daemonsets", "batch/jobs":
		return true
	}
	return false
}

// defaultServiceSpec is SetDefaults_Service: ClusterIP, no session
// affinity, TCP ports whose target is the port itself, and the Cluster
// internal traffic policy.
func defaultServiceSpec(spec map[string]any) {
	setDefault(spec, "type", "ClusterIP")
	setDefault(spec, "sessionAffinity", "None")
	ports, _ := spec["ports"].([]any)
	for _, p := range ports {
		if p, ok := p.(map[string]any); ok {
			setDefault(p, "protocol", "TCP")
			if p["port"] != nil {
				setDefault(p, "targetPort", p["port"])
			}
		}
	}
	if t := spec["type"]; t == "ClusterIP" || t == "NodePort" || t == "LoadBalancer" {
		setDefault(spec, "internalTrafficPolicy", "Cluster")
	}
}

// allocateClusterIP gives a new Service of a type that has one a cluster
// IP, as kube-apiserver's service REST does, from 10.96.0.0/12 (its
// default service-cluster-ip-range), counting up from 10.96.0.10; a
// headless service ("None") and an ExternalName service get none.
func (s *Server) allocateClusterIP(res *Resource, m object) {
	if !isCore(res, "services") {
		return
	}
	spec, _ := m["spec"].(map[string]any)
	if spec == nil || spec["type"] == "ExternalName" {
		return
	}
	ip := storage.Str(spec, "clusterIP")
	if ip == "" {
		n := s.serviceIPs.Add(1) + 9
		ip = fmt.Sprintf("10.96.%d.%d", n/256, n%256)
		spec["clusterIP"] = ip
	}
	setDefault(spec, "clusterIPs", []any{ip})
	if ip != "None" {
		setDefault(spec, "ipFamilies", []any{"IPv4"})
		setDefault(spec, "ipFamilyPolicy", "SingleStack")
	}
}
