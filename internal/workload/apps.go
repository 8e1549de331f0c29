package workload

import (
	"fmt"
	"time"

	"github.com/zerokube/zerokube/meta"
)

// Deployment generates deployment d: the owner of replica set d.
func (c Config) Deployment(d int) *Deployment {
	c = c.withDefaults()
	app := c.appName(d)
	replicas, limit := int32(3), int32(10)
	dep := &Deployment{}
	c.workloadMeta(&dep.ObjectMeta, d, app, app, c.deploymentUID(d))
	dep.Spec = DeploymentSpec{Replicas: &replicas, RevisionHistoryLimit: &limit,
		Selector: &LabelSelector{MatchLabels: map[string]string{"app.kubernetes.io/name": app}},
		Template: c.template(d, app)}
	dep.Status = ReplicaStatus{ObservedGeneration: 1, Replicas: replicas, ReadyReplicas: replicas, AvailableReplicas: replicas}
	return dep
}

// ReplicaSet generates replica set rs, owned by deployment rs.
func (c Config) ReplicaSet(rs int) *ReplicaSet {
	c = c.withDefaults()
	app := c.appName(rs)
	replicas := int32(3)
	r := &ReplicaSet{}
	c.workloadMeta(&r.ObjectMeta, rs, c.replicaSetName(rs), app, c.replicaSetUID(rs))
	r.Labels["pod-template-hash"] = c.templateHash(rs)
	ctrl := true
	r.OwnerReferences = []meta.OwnerReference{{APIVersion: "apps/v1", Kind: "Deployment", Name: app,
		UID: c.deploymentUID(rs), Controller: &ctrl, BlockOwnerDeletion: &ctrl}}
	r.Spec = ReplicaSetSpec{Replicas: &replicas,
		Selector: &LabelSelector{MatchLabels: map[string]string{"app.kubernetes.io/name": app, "pod-template-hash": c.templateHash(rs)}},
		Template: c.template(rs, app)}
	r.Status = ReplicaStatus{ObservedGeneration: 1, Replicas: replicas, ReadyReplicas: replicas, AvailableReplicas: replicas}
	return r
}

func (c Config) workloadMeta(m *meta.ObjectMeta, i int, name, app, uid string) {
	m.Name, m.Namespace, m.UID = name, c.namespace(i), uid
	m.ResourceVersion = fmt.Sprint(500 + i)
	m.Generation = 1
	m.CreationTimestamp = epoch.Add(-time.Hour + time.Duration(i)*time.Second)
	m.Labels = map[string]string{"app.kubernetes.io/name": app, "app.kubernetes.io/part-of": teams[i%len(teams)]}
	m.Annotations = map[string]string{"deployment.kubernetes.io/revision": "1"}
}

// template is the pod template of deployment (and replica set) i: the spec
// of its pods without status, names or managedFields.
func (c Config) template(i int, app string) PodTemplateSpec {
	p := c.podWithoutManagedFields(i, 0) // pod i belongs to replica set i; its base spec is the template
	var t PodTemplateSpec
	t.Metadata.Labels = map[string]string{"app.kubernetes.io/name": app}
	t.Spec = p.Spec
	t.Spec.NodeName = ""
	return t
}
