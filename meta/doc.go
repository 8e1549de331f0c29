// Package meta is the vocabulary every other zerokube package speaks: object
// metadata, list metadata, the Status error body, watch event types, label
// and field selectors, resource names ([GVR]), patch types and preconditions.
//
// It sits at the bottom of the house, under the whole data path
//
//	meta ◀─ watchstream ◀─ apiclient ◀─ informer (reflector ─▶ fifo ─▶ cache ─▶ handlers)
//	meta ◀─ fakeapiserver
//
// and imports nothing from it: no HTTP, no queues. Everything here is plain data
// plus the few functions that interpret it.
//
// Objects are the caller's own Go types. A type is an [Object] when a pointer
// to it has the four getters zerokube files, versions and selects objects by
// (GetName, GetNamespace, GetResourceVersion, GetLabels). Embedding
// [ObjectMeta] or the smaller [SlimMeta] under the JSON name "metadata" is
// enough, because the embedded field promotes them:
//
//	type Pod struct {
//		meta.TypeMeta
//		meta.SlimMeta `json:"metadata"`
//		Status struct {
//			Phase string `json:"phase"`
//		} `json:"status"`
//	}
//
// A *Pod decodes only the fields it declares, so a cache of them pays memory for
// those fields alone: with SlimMeta that excludes annotations, owner references,
// finalizers and timestamps, which a Go map and a few strings make about half
// of what a slim type keeps. [Raw] serves callers that want every field: its
// metadata is decoded and the rest of the object is kept as the bytes that
// arrived. Code that needs more than the getters asks for [FullMeta].
//
// Objects decoded through a [Sharer], as an informer's are by default,
// share equal label and annotation maps (any map[string]string): the pods
// of one ReplicaSet hold one labels map where each held a copy, and a Go
// map of a few entries costs about 340 bytes before its strings. Such
// objects are read-only, as cached objects always were: copy a map
// (maps.Clone) before changing it.
//
// Invariants:
//  1. JSON is decoded and encoded with github.com/go-json-experiment/json (the
//     upstream of encoding/json/v2); names match case-sensitively, as in
//     kube-apiserver.
//  2. A Status received from a server becomes a *StatusError; the Is… helpers
//     (IsNotFound, IsGone, …) look through wrapped errors with errors.As.
//  3. Nothing in this package keeps global mutable state, beyond sync.Pools
//     of scratch buffers and of recently decoded strings, which change no
//     result.
//  4. A [Sharer] decodes a map as the default decoder does, sharing aside.
//     [TestSharerDecodesAsTheDefaultDecoder, FuzzSharerDecodesAsTheDefaultDecoder]
//  5. A [Sharer] remembers at most a few hundred maps and no strings of its
//     own, so sharing keeps nothing alive long after the objects that
//     hold it. [TestSharerKeepsABoundedNumberOfMaps]
package meta
