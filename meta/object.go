package meta

import (
	"strings"
	"time"
)

// TypeMeta names an object's kind and API version. Lists of built-in types
// omit it on their items; the client fills it in from the list.
type TypeMeta struct {
	Kind       string `json:"kind,omitempty"`
	APIVersion string `json:"apiVersion,omitempty"`
}

// GetTypeMeta lets a type that embeds TypeMeta have its kind filled in.
func (t *TypeMeta) GetTypeMeta() *TypeMeta { return t }

// ObjectMeta is the metadata every persisted Kubernetes object carries.
//
// ManagedFields is kept as undecoded JSON (see [ManagedFields]); decoders
// skip it under [SkipManagedFields], and informers drop it by default.
type ObjectMeta struct {
	Name                       string            `json:"name,omitempty"`
	GenerateName               string            `json:"generateName,omitempty"`
	Namespace                  string            `json:"namespace,omitempty"`
	UID                        string            `json:"uid,omitempty"`
	ResourceVersion            string            `json:"resourceVersion,omitempty"`
	Generation                 int64             `json:"generation,omitzero"`
	CreationTimestamp          time.Time         `json:"creationTimestamp,omitzero"`
	DeletionTimestamp          *time.Time        `json:"deletionTimestamp,omitempty"`
	DeletionGracePeriodSeconds *int64            `json:"deletionGracePeriodSeconds,omitempty"`
	Labels                     map[string]string `json:"labels,omitempty"`
	Annotations                map[string]string `json:"annotations,omitempty"`
	OwnerReferences            []OwnerReference  `json:"ownerReferences,omitempty"`
	Finalizers                 []string          `json:"finalizers,omitempty"`
	ManagedFields              ManagedFields     `json:"managedFields,omitempty"`
}

// GetObjectMeta returns m itself. Embedding ObjectMeta in a struct promotes
// this method, for code that wants every metadata field of an object it only
// knows as an [Object].
func (m *ObjectMeta) GetObjectMeta() *ObjectMeta { return m }

// GetName, GetNamespace, GetResourceVersion and GetLabels make a pointer to a
// struct embedding ObjectMeta an [Object].
func (m *ObjectMeta) GetName() string              { return m.Name }
func (m *ObjectMeta) GetNamespace() string         { return m.Namespace }
func (m *ObjectMeta) GetResourceVersion() string   { return m.ResourceVersion }
func (m *ObjectMeta) GetLabels() map[string]string { return m.Labels }

// GetUID returns the uid: what a shard selector hashes by default.
func (m *ObjectMeta) GetUID() string { return m.UID }

// SlimMeta is the part of ObjectMeta that zerokube itself reads: what files an
// object (namespace and name), tells its versions apart, and selects it. Embed
// it instead of ObjectMeta under "metadata" when annotations, owner
// references, finalizers and timestamps are not needed: they are then skipped
// by the decoder and cost no memory in a cache. On a 5 KB pod that is about
// half of what a cached slim object keeps.
type SlimMeta struct {
	// ManagedFields is read past, never kept: listed so that the decoder
	// skips the kilobytes of it in one fast pass (see [Ignored]).
	ManagedFields Ignored `json:"managedFields,omitzero"`

	Name            string            `json:"name,omitempty"`
	Namespace       string            `json:"namespace,omitempty"`
	UID             string            `json:"uid,omitempty"`
	ResourceVersion string            `json:"resourceVersion,omitempty"`
	Labels          map[string]string `json:"labels,omitempty"`
}

// GetName, GetNamespace, GetResourceVersion and GetLabels make a pointer to a
// struct embedding SlimMeta an [Object].
func (m *SlimMeta) GetName() string              { return m.Name }
func (m *SlimMeta) GetNamespace() string         { return m.Namespace }
func (m *SlimMeta) GetResourceVersion() string   { return m.ResourceVersion }
func (m *SlimMeta) GetLabels() map[string]string { return m.Labels }

// GetUID returns the uid: what a shard selector hashes by default.
func (m *SlimMeta) GetUID() string { return m.UID }

// OwnerReference points at the object that owns this one.
type OwnerReference struct {
	APIVersion         string `json:"apiVersion"`
	Kind               string `json:"kind"`
	Name               string `json:"name"`
	UID                string `json:"uid"`
	Controller         *bool  `json:"controller,omitempty"`
	BlockOwnerDeletion *bool  `json:"blockOwnerDeletion,omitempty"`
}

// ListMeta is the metadata of a list reply.
type ListMeta struct {
	ResourceVersion    string `json:"resourceVersion,omitempty"`
	Continue           string `json:"continue,omitempty"`
	RemainingItemCount *int64 `json:"remainingItemCount,omitempty"`
	// ShardInfo is set by a server that applied the request's shardSelector
	// (KEP-5866); nil means the list is not a shard, even if one was asked for.
	ShardInfo *ShardInfo `json:"shardInfo,omitempty"`
}

// ShardInfo echoes the shard selector a server applied to a list, in the
// server's canonical form (see package shard).
type ShardInfo struct {
	Selector string `json:"selector"`
}

// Object is what zerokube needs of every object it lists, watches and
// caches: where it is filed, which version it is, and its labels for
// selectors. Pointers to structs that embed [ObjectMeta] or [SlimMeta] are
// Objects; so is any type with these four methods.
type Object interface {
	GetName() string
	GetNamespace() string
	GetResourceVersion() string
	GetLabels() map[string]string
}

// FullMeta is implemented by objects that carry a whole [ObjectMeta]: code
// that needs a field beyond [Object] (managedFields, annotations) asks for it
// with a type assertion and leaves other objects alone.
type FullMeta interface {
	GetObjectMeta() *ObjectMeta
}

// PtrObject is the constraint generic code uses to allocate and decode a T
// while handling it as an Object: P is *T. With it a caller writes
// informer.New[Pod](…) and the compiler infers P = *Pod.
type PtrObject[T any] interface {
	*T
	Object
}

// TypeMetaAccessor is implemented by objects that embed TypeMeta.
type TypeMetaAccessor interface {
	GetTypeMeta() *TypeMeta
}

// Key returns the store key of obj: "namespace/name", or "name" for
// cluster-scoped objects. It is the key client-go's MetaNamespaceKeyFunc makes,
// so keys printed by zerokube match what Kubernetes users know.
func Key(obj Object) string { return JoinKey(obj.GetNamespace(), obj.GetName()) }

// JoinKey is the key of the object name in namespace: "namespace/name", or
// "name" when namespace is "" (cluster-scoped, or not known). SplitKey
// undoes it.
func JoinKey(namespace, name string) string {
	if namespace == "" {
		return name
	}
	return namespace + "/" + name
}

// SplitKey splits a key made by Key into namespace and name.
func SplitKey(key string) (namespace, name string) {
	if i := strings.IndexByte(key, '/'); i >= 0 {
		return key[:i], key[i+1:]
	}
	return "", key
}
