package meta

// PatchType is the Content-Type of a PATCH body. Client and fake server
// share these names so a test reads the same on both sides of the wire.
type PatchType string

// The patch formats kube-apiserver accepts.
const (
	// JSONPatch is RFC 6902: a list of operations.
	JSONPatch PatchType = "application/json-patch+json"
	// MergePatch is RFC 7386: an object merged over the stored one, null
	// deleting a member.
	MergePatch PatchType = "application/merge-patch+json"
	// StrategicMergePatch is a merge patch that merges lists by their
	// merge keys (containers by name, for example) instead of replacing them.
	StrategicMergePatch PatchType = "application/strategic-merge-patch+json"
	// ApplyPatch is a server-side apply (kubectl apply --server-side): a
	// YAML or JSON configuration owned by a field manager.
	ApplyPatch PatchType = "application/apply-patch+yaml"
)

// Preconditions guard a write or delete, as metav1.Preconditions do: a
// field that is set must match the stored object, or the server answers
// 409 Conflict. A nil field is not checked; pointers tell "not checked"
// apart from "must be empty".
type Preconditions struct {
	UID             *string `json:"uid,omitempty"`
	ResourceVersion *string `json:"resourceVersion,omitempty"`
}
