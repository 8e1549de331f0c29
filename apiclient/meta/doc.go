// Package meta is the vocabulary every other zerokube package speaks: object
// metadata, list metadata, the Status error body, watch event types, and label
// and field selectors.
//
// It sits at the bottom of the data path
//
//	apiclient ─▶ watchstream ─▶ informer (reflector ─▶ fifo ─▶ cache ─▶ handlers)
//
// and imports nothing from it: no HTTP, no queues. Everything here is plain data
// plus the few functions that interpret it.
//
// Objects are the caller's own Go types. A type is an [Object] when a pointer to
// it carries an [ObjectMeta]; embedding ObjectMeta under the JSON name "metadata"
// is enough, because the embedded field promotes [ObjectMeta.GetObjectMeta]:
//
//	type Pod struct {
//		meta.TypeMeta
//		meta.ObjectMeta `json:"metadata"`
//		Status struct {
//			Phase string `json:"phase"`
//		} `json:"status"`
//	}
//
// A *Pod decodes only the fields it declares, so a cache of them pays memory for
// those fields alone. [Raw] serves callers that want every field: its metadata is
// decoded and the rest of the object is kept as the bytes that arrived.
//
// Invariants:
//  1. JSON is decoded and encoded with github.com/go-json-experiment/json (the
//     upstream of encoding/json/v2); names match case-sensitively, as in
//     kube-apiserver.
//  2. A Status received from a server becomes a *StatusError; the Is… helpers
//     (IsNotFound, IsGone, …) look through wrapped errors with errors.As.
//  3. Nothing in this package keeps global mutable state.
package meta
