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

// GetObjectMeta returns m itself. Embedding ObjectMeta in a struct promotes this
// method, which is what makes a pointer to that struct an [Object].
func (m *ObjectMeta) GetObjectMeta() *ObjectMeta { return m }

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
}

// Object is anything that carries ObjectMeta. Implementations are pointers to
// structs that embed ObjectMeta.
type Object interface {
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
func Key(obj Object) string {
	m := obj.GetObjectMeta()
	if m.Namespace == "" {
		return m.Name
	}
	return m.Namespace + "/" + m.Name
}

// SplitKey splits a key made by Key into namespace and name.
func SplitKey(key string) (namespace, name string) {
	if i := strings.IndexByte(key, '/'); i >= 0 {
		return key[:i], key[i+1:]
	}
	return "", key
}
