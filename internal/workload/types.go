package workload

import (
	"time"

	"github.com/zerokube/zerokube/meta"
)

// The types below are a faithful subset of core/v1 and apps/v1: every field
// the generator writes has a home here, so decoding into [Pod] is the cost of
// a user who asks for the whole object. Resource quantities are strings, as
// they are on the wire.

// Pod is the full pod type: every field the generator emits is decoded.
type Pod struct {
	meta.TypeMeta
	meta.ObjectMeta `json:"metadata"`
	Spec            PodSpec   `json:"spec"`
	Status          PodStatus `json:"status"`
}

// SlimPod is what a user who needs a pod's name, labels, node and phase
// declares: meta.SlimMeta for the metadata zerokube files and selects by,
// three fields of spec and status, and everything else in the JSON skipped by
// the decoder.
type SlimPod struct {
	meta.SlimMeta `json:"metadata"`
	Spec          SlimSpec   `json:"spec"`
	Status        SlimStatus `json:"status"`
}

// SlimPodFullMeta is SlimPod with the whole meta.ObjectMeta: annotations,
// owner references, timestamps and (unless the informer drops them)
// managedFields. It measures what embedding ObjectMeta costs a slim type.
type SlimPodFullMeta struct {
	meta.ObjectMeta `json:"metadata"`
	Spec            SlimSpec   `json:"spec"`
	Status          SlimStatus `json:"status"`
}

// SlimSpec is the one field of a pod's spec the slim types read.
type SlimSpec struct {
	NodeName string `json:"nodeName"`
}

// SlimStatus is the two fields of a pod's status the slim types read.
type SlimStatus struct {
	Phase string `json:"phase"`
	PodIP string `json:"podIP"`
}

// PodSpec is the subset of core/v1 PodSpec the generator fills.
type PodSpec struct {
	Volumes                       []Volume            `json:"volumes,omitempty"`
	InitContainers                []Container         `json:"initContainers,omitempty"`
	Containers                    []Container         `json:"containers"`
	RestartPolicy                 string              `json:"restartPolicy,omitempty"`
	TerminationGracePeriodSeconds *int64              `json:"terminationGracePeriodSeconds,omitzero"`
	DNSPolicy                     string              `json:"dnsPolicy,omitempty"`
	NodeSelector                  map[string]string   `json:"nodeSelector,omitempty"`
	ServiceAccountName            string              `json:"serviceAccountName,omitempty"`
	NodeName                      string              `json:"nodeName,omitempty"`
	SecurityContext               *PodSecurityContext `json:"securityContext,omitempty"`
	SchedulerName                 string              `json:"schedulerName,omitempty"`
	Tolerations                   []Toleration        `json:"tolerations,omitempty"`
	PriorityClassName             string              `json:"priorityClassName,omitempty"`
	Priority                      *int32              `json:"priority,omitzero"`
	EnableServiceLinks            *bool               `json:"enableServiceLinks,omitzero"`
	PreemptionPolicy              string              `json:"preemptionPolicy,omitempty"`
}

// Volume is a pod volume; only the sources the generator uses.
type Volume struct {
	Name      string                 `json:"name"`
	ConfigMap *ConfigMapVolumeSource `json:"configMap,omitempty"`
	Projected *ProjectedVolumeSource `json:"projected,omitempty"`
	EmptyDir  *struct{}              `json:"emptyDir,omitempty"`
}

// ConfigMapVolumeSource mounts a config map.
type ConfigMapVolumeSource struct {
	Name        string `json:"name"`
	DefaultMode *int32 `json:"defaultMode,omitzero"`
}

// ProjectedVolumeSource is the service-account token volume every pod gets.
type ProjectedVolumeSource struct {
	Sources     []VolumeProjection `json:"sources"`
	DefaultMode *int32             `json:"defaultMode,omitzero"`
}

// VolumeProjection is one source of a projected volume.
type VolumeProjection struct {
	ServiceAccountToken *ServiceAccountTokenProjection `json:"serviceAccountToken,omitempty"`
	ConfigMap           *ConfigMapProjection           `json:"configMap,omitempty"`
}

// ServiceAccountTokenProjection is a bound token.
type ServiceAccountTokenProjection struct {
	ExpirationSeconds *int64 `json:"expirationSeconds,omitzero"`
	Path              string `json:"path"`
}

// ConfigMapProjection projects keys of a config map.
type ConfigMapProjection struct {
	Name  string      `json:"name"`
	Items []KeyToPath `json:"items,omitempty"`
}

// KeyToPath maps a key to a file.
type KeyToPath struct {
	Key  string `json:"key"`
	Path string `json:"path"`
}

// Container is the subset of core/v1 Container the generator fills.
type Container struct {
	Name                     string               `json:"name"`
	Image                    string               `json:"image"`
	Command                  []string             `json:"command,omitempty"`
	Args                     []string             `json:"args,omitempty"`
	Ports                    []ContainerPort      `json:"ports,omitempty"`
	Env                      []EnvVar             `json:"env,omitempty"`
	Resources                ResourceRequirements `json:"resources"`
	VolumeMounts             []VolumeMount        `json:"volumeMounts,omitempty"`
	LivenessProbe            *Probe               `json:"livenessProbe,omitempty"`
	ReadinessProbe           *Probe               `json:"readinessProbe,omitempty"`
	TerminationMessagePath   string               `json:"terminationMessagePath,omitempty"`
	TerminationMessagePolicy string               `json:"terminationMessagePolicy,omitempty"`
	ImagePullPolicy          string               `json:"imagePullPolicy,omitempty"`
}

// ContainerPort is a port a container exposes.
type ContainerPort struct {
	Name          string `json:"name,omitempty"`
	ContainerPort int32  `json:"containerPort"`
	Protocol      string `json:"protocol,omitempty"`
}

// EnvVar is an environment variable, literal or from a field/secret.
type EnvVar struct {
	Name      string        `json:"name"`
	Value     string        `json:"value,omitempty"`
	ValueFrom *EnvVarSource `json:"valueFrom,omitempty"`
}

// EnvVarSource is where an env var's value comes from.
type EnvVarSource struct {
	FieldRef     *ObjectFieldSelector `json:"fieldRef,omitempty"`
	SecretKeyRef *KeySelector         `json:"secretKeyRef,omitempty"`
}

// ObjectFieldSelector selects a field of the pod.
type ObjectFieldSelector struct {
	APIVersion string `json:"apiVersion,omitempty"`
	FieldPath  string `json:"fieldPath"`
}

// KeySelector selects a key of a secret or config map.
type KeySelector struct {
	Name string `json:"name"`
	Key  string `json:"key"`
}

// ResourceRequirements are a container's requests and limits.
type ResourceRequirements struct {
	Limits   map[string]string `json:"limits,omitempty"`
	Requests map[string]string `json:"requests,omitempty"`
}

// VolumeMount mounts a volume into a container.
type VolumeMount struct {
	Name      string `json:"name"`
	ReadOnly  bool   `json:"readOnly,omitzero"`
	MountPath string `json:"mountPath"`
}

// Probe is an HTTP probe.
type Probe struct {
	HTTPGet             *HTTPGetAction `json:"httpGet,omitempty"`
	InitialDelaySeconds int32          `json:"initialDelaySeconds,omitzero"`
	TimeoutSeconds      int32          `json:"timeoutSeconds,omitzero"`
	PeriodSeconds       int32          `json:"periodSeconds,omitzero"`
	SuccessThreshold    int32          `json:"successThreshold,omitzero"`
	FailureThreshold    int32          `json:"failureThreshold,omitzero"`
}

// HTTPGetAction is a probe's HTTP request.
type HTTPGetAction struct {
	Path   string `json:"path,omitempty"`
	Port   int32  `json:"port"`
	Scheme string `json:"scheme,omitempty"`
}

// PodSecurityContext is the pod-level security context.
type PodSecurityContext struct {
	RunAsUser    *int64 `json:"runAsUser,omitzero"`
	RunAsNonRoot *bool  `json:"runAsNonRoot,omitzero"`
	FSGroup      *int64 `json:"fsGroup,omitzero"`
}

// Toleration tolerates a node taint.
type Toleration struct {
	Key               string `json:"key,omitempty"`
	Operator          string `json:"operator,omitempty"`
	Effect            string `json:"effect,omitempty"`
	TolerationSeconds *int64 `json:"tolerationSeconds,omitzero"`
}

// PodStatus is the subset of core/v1 PodStatus the generator fills.
type PodStatus struct {
	Phase             string            `json:"phase,omitempty"`
	Conditions        []PodCondition    `json:"conditions,omitempty"`
	HostIP            string            `json:"hostIP,omitempty"`
	HostIPs           []IP              `json:"hostIPs,omitempty"`
	PodIP             string            `json:"podIP,omitempty"`
	PodIPs            []IP              `json:"podIPs,omitempty"`
	StartTime         *time.Time        `json:"startTime,omitempty"`
	ContainerStatuses []ContainerStatus `json:"containerStatuses,omitempty"`
	QOSClass          string            `json:"qosClass,omitempty"`
}

// IP is one entry of hostIPs/podIPs.
type IP struct {
	IP string `json:"ip"`
}

// PodCondition is one of the pod's conditions.
type PodCondition struct {
	Type               string     `json:"type"`
	Status             string     `json:"status"`
	LastProbeTime      *time.Time `json:"lastProbeTime"`
	LastTransitionTime time.Time  `json:"lastTransitionTime"`
}

// ContainerStatus is a container's observed state.
type ContainerStatus struct {
	Name         string         `json:"name"`
	State        ContainerState `json:"state"`
	Ready        bool           `json:"ready"`
	RestartCount int32          `json:"restartCount"`
	Image        string         `json:"image"`
	ImageID      string         `json:"imageID"`
	ContainerID  string         `json:"containerID,omitempty"`
	Started      *bool          `json:"started,omitzero"`
}

// ContainerState is the running state of a container.
type ContainerState struct {
	Running *struct {
		StartedAt time.Time `json:"startedAt"`
	} `json:"running,omitempty"`
}

// Deployment is apps/v1 Deployment (the fields the generator fills).
type Deployment struct {
	meta.TypeMeta
	meta.ObjectMeta `json:"metadata"`
	Spec            DeploymentSpec `json:"spec"`
	Status          ReplicaStatus  `json:"status"`
}

// DeploymentSpec is a deployment's desired state.
type DeploymentSpec struct {
	Replicas             *int32          `json:"replicas,omitzero"`
	Selector             *LabelSelector  `json:"selector"`
	Template             PodTemplateSpec `json:"template"`
	RevisionHistoryLimit *int32          `json:"revisionHistoryLimit,omitzero"`
}

// ReplicaSet is apps/v1 ReplicaSet (the fields the generator fills).
type ReplicaSet struct {
	meta.TypeMeta
	meta.ObjectMeta `json:"metadata"`
	Spec            ReplicaSetSpec `json:"spec"`
	Status          ReplicaStatus  `json:"status"`
}

// ReplicaSetSpec is a replica set's desired state.
type ReplicaSetSpec struct {
	Replicas *int32          `json:"replicas,omitzero"`
	Selector *LabelSelector  `json:"selector"`
	Template PodTemplateSpec `json:"template"`
}

// LabelSelector is the structured selector of workloads.
type LabelSelector struct {
	MatchLabels map[string]string `json:"matchLabels,omitempty"`
}

// PodTemplateSpec is the pod template of a workload.
type PodTemplateSpec struct {
	Metadata struct {
		Labels map[string]string `json:"labels,omitempty"`
	} `json:"metadata"`
	Spec PodSpec `json:"spec"`
}

// ReplicaStatus is the status shared by deployments and replica sets.
type ReplicaStatus struct {
	ObservedGeneration int64 `json:"observedGeneration,omitzero"`
	Replicas           int32 `json:"replicas,omitzero"`
	ReadyReplicas      int32 `json:"readyReplicas,omitzero"`
	AvailableReplicas  int32 `json:"availableReplicas,omitzero"`
}
