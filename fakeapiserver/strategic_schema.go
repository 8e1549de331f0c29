package fakeapiserver

import "github.com/zerokube/zerokube/meta"

// smpField is what a Go field's patchStrategy and patchMergeKey tags in
// k8s.io/api say, for the fields of the built-in kinds whose tags matter
// to a strategic merge patch. A field the schema does not name has neither
// tag: an object merges key by key, a list is replaced.
type smpField struct {
	// merge is patchStrategy "merge": a list of objects is merged element
	// by element, matched on key; a list of scalars is a set (union, and
	// "$deleteFromPrimitiveList/<field>" removes).
	merge bool
	key   string    // patchMergeKey, for a list of objects
	elem  smpSchema // the fields of the object, or of each list element
}

// smpSchema maps a JSON field name to its tags.
type smpSchema map[string]*smpField

func (s smpSchema) field(name string) *smpField {
	if f := s[name]; f != nil {
		return f
	}
	return &smpField{}
}

func mergeList(key string, elem smpSchema) *smpField {
	return &smpField{merge: true, key: key, elem: elem}
}
func fieldsOf(elem smpSchema) *smpField { return &smpField{elem: elem} }

// The tags, from k8s.io/api core/v1, apps/v1, batch/v1 and
// apimachinery's meta/v1 types.go (v1.37).
var (
	smpObjectMeta = smpSchema{
		"finalizers":      {merge: true},
		"ownerReferences": mergeList("uid", nil),
	}
	smpContainer = smpSchema{
		"ports":         mergeList("containerPort", nil),
		"env":           mergeList("name", nil),
		"volumeMounts":  mergeList("mountPath", nil),
		"volumeDevices": mergeList("devicePath", nil),
	}
	smpPodSpec = smpSchema{
		"volumes":                   mergeList("name", nil), // and retainKeys, which needs no schema here
		"initContainers":            mergeList("name", smpContainer),
		"containers":                mergeList("name", smpContainer),
		"ephemeralContainers":       mergeList("name", smpContainer),
		"imagePullSecrets":          mergeList("name", nil),
		"hostAliases":               mergeList("ip", nil),
		"topologySpreadConstraints": mergeList("topologyKey", nil),
		"resourceClaims":            mergeList("name", nil),
		"schedulingGates":           mergeList("name", nil),
	}
	smpPodTemplate = smpSchema{"metadata": fieldsOf(smpObjectMeta), "spec": fieldsOf(smpPodSpec)}
	smpConditions  = smpSchema{"conditions": mergeList("type", nil)}
	smpPodStatus   = smpSchema{
		"conditions":            mergeList("type", nil),
		"podIPs":                mergeList("ip", nil),
		"hostIPs":               mergeList("ip", nil),
		"resourceClaimStatuses": mergeList("name", nil),
	}
	// smpWorkload is a Deployment, ReplicaSet, StatefulSet or Job: a pod
	// template in its spec, conditions by type in its status.
	smpWorkload = smpSchema{
		"metadata": fieldsOf(smpObjectMeta),
		"spec":     fieldsOf(smpSchema{"template": fieldsOf(smpPodTemplate)}),
		"status":   fieldsOf(smpConditions),
	}
)

// smpSchemas are the kinds served with a strategic merge patch: the
// built-in kinds. A custom resource has no Go type to take tags from, so
// kube-apiserver refuses the patch type for it (415).
var smpSchemas = map[meta.GVR]smpSchema{
	{Version: "v1", Resource: "pods"}: {
		"metadata": fieldsOf(smpObjectMeta), "spec": fieldsOf(smpPodSpec), "status": fieldsOf(smpPodStatus),
	},
	{Version: "v1", Resource: "services"}: {
		"metadata": fieldsOf(smpObjectMeta), "spec": fieldsOf(smpSchema{"ports": mergeList("port", nil)}),
		"status": fieldsOf(smpConditions),
	},
	{Version: "v1", Resource: "nodes"}: {
		"metadata": fieldsOf(smpObjectMeta), "spec": fieldsOf(smpSchema{"podCIDRs": {merge: true}}),
		"status": fieldsOf(smpSchema{"conditions": mergeList("type", nil), "addresses": mergeList("type", nil)}),
	},
	{Version: "v1", Resource: "namespaces"}:                           {"metadata": fieldsOf(smpObjectMeta), "status": fieldsOf(smpConditions)},
	{Version: "v1", Resource: "configmaps"}:                           {"metadata": fieldsOf(smpObjectMeta)},
	{Version: "v1", Resource: "secrets"}:                              {"metadata": fieldsOf(smpObjectMeta)},
	{Version: "v1", Resource: "events"}:                               {"metadata": fieldsOf(smpObjectMeta)},
	{Group: "apps", Version: "v1", Resource: "deployments"}:           smpWorkload,
	{Group: "apps", Version: "v1", Resource: "replicasets"}:           smpWorkload,
	{Group: "apps", Version: "v1", Resource: "statefulsets"}:          smpWorkload,
	{Group: "batch", Version: "v1", Resource: "jobs"}:                 smpWorkload,
	{Group: "coordination.k8s.io", Version: "v1", Resource: "leases"}: {"metadata": fieldsOf(smpObjectMeta)},
	crdGVR: {"metadata": fieldsOf(smpObjectMeta)},
}
