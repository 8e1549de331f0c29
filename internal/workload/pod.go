package workload

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/zerokube/zerokube/internal/fieldsv1"
	"github.com/zerokube/zerokube/meta"
)

// epoch is the creation time of the first generated object; later objects
// are a second apart, so every run produces the same timestamps.
var epoch = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// shape is how much of a pod's optional structure the generator writes,
// chosen from the target size: a 1 KB pod cannot hold a sidecar.
type shape struct {
	tiny bool // a 1 KB pod: two labels, no owner, bare container and status
	full bool // annotations, probes, args, volumes, five conditions, managedFields
	rich bool // a sidecar, tolerations, security context, priority, token volume
}

func shapeFor(size int) shape {
	return shape{tiny: size < 1500, full: size >= 3000, rich: size >= 9000}
}

// Pod generates pod number i of the workload. The same Config and i always
// give the same pod, independently of any other pod, so large workloads can
// be generated in parallel.
func (c Config) Pod(i int) *Pod {
	p, _ := c.grown(i)
	return p
}

// grown builds pod i grown to Config.PodSize, with its JSON. Pods grow with
// env vars (as real pods grow); each costs about its JSON plus its
// managedFields entry, so a few rounds converge. The JSON of the last round
// is the pod's, so it is never encoded twice.
func (c Config) grown(i int) (*Pod, []byte) {
	c = c.withDefaults()
	p := c.pod(i, 0)
	b := mustMarshal(p)
	extra := 0
	for range 4 {
		if len(b) >= c.PodSize-envVarCost/2 {
			break
		}
		extra += max(1, (c.PodSize-len(b))/envVarCost)
		p = c.pod(i, extra)
		b = mustMarshal(p)
	}
	return p, b
}

// envVarCost is the approximate JSON cost of one extra env var.
const envVarCost = 110

// PodJSON returns pod i as kube-apiserver writes it inside a PodList: with
// no kind or apiVersion.
func (c Config) PodJSON(i int) []byte {
	_, b := c.grown(i)
	return b
}

// fieldSet returns the FieldsV1 set of the fields v sets (see
// fieldsv1.FromJSON, shared with fakeapiserver's managedFields).
func fieldSet(v any, atomic map[string]bool) jsontext.Value {
	return fieldsv1.FromJSON(mustMarshal(v), atomic)
}

// atomicLists are the lists of a pod that core/v1 declares atomic (no
// merge key) and the generator writes: Config.AtomicLists records them
// whole.
var atomicLists = map[string]bool{"containerStatuses": true, "tolerations": true, "sources": true}

func mustMarshal(v any) []byte {
	b, err := json.Marshal(v, json.Deterministic(true))
	if err != nil {
		panic(fmt.Sprintf("workload: marshal: %v", err))
	}
	return b
}

// pod builds pod i with extra additional env vars on its first container.
func (c Config) pod(i, extra int) *Pod {
	p := c.podWithoutManagedFields(i, extra)
	if shapeFor(c.PodSize).full {
		p.ManagedFields = c.managedFields(p)
	}
	return p
}

// podWithoutManagedFields is pod without its managedFields, the costliest
// part to build: a workload's pod template needs the rest only.
func (c Config) podWithoutManagedFields(i, extra int) *Pod {
	rng := rand.New(rand.NewPCG(c.Seed, uint64(i)))
	rs := i % c.ReplicaSets
	app := c.appName(rs) // replica set rs belongs to deployment rs
	sh := shapeFor(c.PodSize)
	p := &Pod{}
	p.Namespace = c.namespace(rs)
	p.GenerateName = c.replicaSetName(rs) + "-"
	p.Name = p.GenerateName + suffix(rng, 5)
	if sh.tiny {
		p.GenerateName = ""
	}
	p.UID = uuid(rng)
	p.ResourceVersion = fmt.Sprint(1000 + i)
	p.CreationTimestamp = epoch.Add(time.Duration(i) * time.Second)
	p.Labels = map[string]string{"app.kubernetes.io/name": app, "pod-template-hash": c.templateHash(rs)}
	if !sh.tiny {
		p.Labels["app.kubernetes.io/part-of"], p.Labels["tier"] = teams[rs%len(teams)], tiers[rs%len(tiers)]
	}
	if sh.full {
		p.Labels["app.kubernetes.io/version"] = fmt.Sprintf("v1.%d.%d", rng.IntN(30), rng.IntN(10))
		p.Annotations = map[string]string{
			"prometheus.io/scrape": "true", "prometheus.io/port": "9090",
			"kubectl.kubernetes.io/default-container": "app",
		}
	}
	ctrl := true
	if !sh.tiny {
		p.OwnerReferences = []meta.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet",
			Name: c.replicaSetName(rs), UID: c.replicaSetUID(rs), Controller: &ctrl, BlockOwnerDeletion: &ctrl}}
	}
	p.Spec = c.podSpec(rng, app, sh, extra)
	p.Status = podStatus(rng, p, sh, i)
	return p
}

func (c Config) podSpec(rng *rand.Rand, app string, sh shape, extra int) PodSpec {
	grace, prio := int64(30), int32(rng.IntN(1000))
	s := PodSpec{
		RestartPolicy: "Always", TerminationGracePeriodSeconds: &grace, DNSPolicy: "ClusterFirst",
		ServiceAccountName: app, SchedulerName: "default-scheduler",
		NodeName: fmt.Sprintf("node-%03d", rng.IntN(c.Nodes)),
	}
	s.Containers = []Container{container(rng, "app", app, sh, extra)}
	if sh.rich {
		s.Containers = append(s.Containers, container(rng, "proxy", "envoy", sh, 0))
	}
	if !sh.full {
		return s
	}
	if !sh.rich {
		return s
	}
	mode := int32(420)
	s.Volumes = []Volume{{Name: "config", ConfigMap: &ConfigMapVolumeSource{Name: app + "-config", DefaultMode: &mode}}}
	exp := int64(3607)
	s.Volumes = append(s.Volumes, Volume{Name: "kube-api-access-" + suffix(rng, 5), Projected: &ProjectedVolumeSource{DefaultMode: &mode,
		Sources: []VolumeProjection{
			{ServiceAccountToken: &ServiceAccountTokenProjection{ExpirationSeconds: &exp, Path: "token"}},
			{ConfigMap: &ConfigMapProjection{Name: "kube-root-ca.crt", Items: []KeyToPath{{Key: "ca.crt", Path: "ca.crt"}}}},
		}}})
	uid, nonRoot := int64(1000+rng.IntN(1000)), true
	// kube-apiserver's admission adds the token volume to every pod; the
	// other rich fields are what a production chart sets.
	s.SecurityContext = &PodSecurityContext{RunAsUser: &uid, RunAsNonRoot: &nonRoot, FSGroup: &uid}
	sec := int64(300)
	s.Tolerations = []Toleration{
		{Key: "node.kubernetes.io/not-ready", Operator: "Exists", Effect: "NoExecute", TolerationSeconds: &sec},
		{Key: "node.kubernetes.io/unreachable", Operator: "Exists", Effect: "NoExecute", TolerationSeconds: &sec},
	}
	s.Priority, s.PriorityClassName, s.PreemptionPolicy = &prio, "default", "PreemptLowerPriority"
	links := false
	s.EnableServiceLinks = &links
	return s
}

func container(rng *rand.Rand, name, app string, sh shape, extra int) Container {
	ct := Container{
		Name: name, Image: fmt.Sprintf("registry.example.com/%s/%s:1.%d.%d", app, name, rng.IntN(40), rng.IntN(10)),
		Ports: []ContainerPort{{Name: "http", ContainerPort: int32(8000 + rng.IntN(1000)), Protocol: "TCP"}},
		Resources: ResourceRequirements{
			Requests: map[string]string{"cpu": fmt.Sprintf("%dm", 50+10*rng.IntN(20)), "memory": fmt.Sprintf("%dMi", 64*(1+rng.IntN(8)))},
			Limits:   map[string]string{"memory": fmt.Sprintf("%dMi", 512*(1+rng.IntN(4)))},
		},
		Env: []EnvVar{{Name: "LOG_LEVEL", Value: levels[rng.IntN(len(levels))]}},
	}
	if !sh.tiny {
		ct.ImagePullPolicy, ct.TerminationMessagePath, ct.TerminationMessagePolicy = "IfNotPresent", "/dev/termination-log", "File"
		ct.Env = append(ct.Env, EnvVar{Name: "POD_NAME", ValueFrom: &EnvVarSource{FieldRef: &ObjectFieldSelector{APIVersion: "v1", FieldPath: "metadata.name"}}})
	}
	if sh.full {
		ct.Env = append(ct.Env,
			EnvVar{Name: "DB_PASSWORD", ValueFrom: &EnvVarSource{SecretKeyRef: &KeySelector{Name: app + "-db", Key: "password"}}})
		probe := &Probe{HTTPGet: &HTTPGetAction{Path: "/healthz", Port: ct.Ports[0].ContainerPort, Scheme: "HTTP"},
			TimeoutSeconds: 1, PeriodSeconds: 10, SuccessThreshold: 1, FailureThreshold: 3}
		ct.ReadinessProbe = probe
		if sh.rich {
			ct.LivenessProbe = probe
			ct.Args = []string{"--config=/etc/" + app + "/config.yaml", fmt.Sprintf("--port=%d", ct.Ports[0].ContainerPort)}
			ct.VolumeMounts = []VolumeMount{{Name: "config", ReadOnly: true, MountPath: "/etc/" + app}}
		}
	}
	for k := range extra {
		ct.Env = append(ct.Env, EnvVar{Name: fmt.Sprintf("FEATURE_%s_%03d", flags[k%len(flags)], k),
			Value: fmt.Sprintf("%s-%04x", values[(k+len(name))%len(values)], rng.IntN(1<<16))})
	}
	return ct
}

func podStatus(rng *rand.Rand, p *Pod, sh shape, i int) PodStatus {
	start := epoch.Add(time.Duration(i)*time.Second + 2*time.Second)
	ip := fmt.Sprintf("10.%d.%d.%d", rng.IntN(256), rng.IntN(256), 1+rng.IntN(254))
	host := fmt.Sprintf("192.168.%d.%d", rng.IntN(256), 1+rng.IntN(254))
	st := PodStatus{Phase: "Running", HostIP: host, PodIP: ip, StartTime: &start, QOSClass: "Burstable"}
	conditions := []string{"Ready"}
	if sh.rich {
		st.HostIPs, st.PodIPs = []IP{{host}}, []IP{{ip}}
	}
	if !sh.tiny {
		conditions = []string{"PodReadyToStartContainers", "Initialized", "Ready", "ContainersReady", "PodScheduled"}
	}
	for _, t := range conditions {
		st.Conditions = append(st.Conditions, PodCondition{Type: t, Status: "True", LastTransitionTime: start})
	}
	for _, ct := range p.Spec.Containers {
		started := true
		cs := ContainerStatus{Name: ct.Name, Ready: true, Image: ct.Image, ImageID: "sha256:" + hex(rng, 64)}
		if !sh.tiny {
			cs.Started, cs.ContainerID = &started, "containerd://"+hex(rng, 64)
		}
		cs.State.Running = &struct {
			StartedAt time.Time `json:"startedAt"`
		}{start.Add(time.Second)}
		st.ContainerStatuses = append(st.ContainerStatuses, cs)
	}
	return st
}

// managedFields builds the two entries kube-apiserver keeps on a pod made by
// a ReplicaSet: the controller's (metadata and spec) and the kubelet's
// (status). They mirror the fields actually set, so they grow with the pod.
func (c Config) managedFields(p *Pod) meta.ManagedFields {
	var atomic map[string]bool
	if c.AtomicLists {
		atomic = atomicLists
	}
	ts := p.CreationTimestamp.Format(time.RFC3339)
	type entry struct {
		Manager     string         `json:"manager"`
		Operation   string         `json:"operation"`
		APIVersion  string         `json:"apiVersion"`
		Time        string         `json:"time"`
		FieldsType  string         `json:"fieldsType"`
		FieldsV1    map[string]any `json:"fieldsV1"`
		Subresource string         `json:"subresource,omitempty"`
	}
	spec := fieldSet(p.Spec, atomic)
	md := map[string]any{"f:generateName": empty(), "f:labels": keysOf(p.Labels),
		"f:ownerReferences": map[string]any{".": empty(), `k:{"uid":"` + p.OwnerReferences[0].UID + `"}`: empty()}}
	if len(p.Annotations) > 0 {
		md["f:annotations"] = keysOf(p.Annotations)
	}
	return mustMarshal([]entry{
		{Manager: "kube-controller-manager", Operation: "Update", APIVersion: "v1", Time: ts, FieldsType: "FieldsV1",
			FieldsV1: map[string]any{"f:metadata": md, "f:spec": spec}},
		{Manager: "kubelet", Operation: "Update", APIVersion: "v1", Time: ts, FieldsType: "FieldsV1", Subresource: "status",
			FieldsV1: map[string]any{"f:status": fieldSet(p.Status, atomic)}},
	})
}
