// Package fieldsv1 builds the FieldsV1 sets of metadata.managedFields:
// which fields of an object each manager set, in the encoding
// kube-apiserver's server-side apply machinery writes.
//
// It sits beside the data path: fakeapiserver records ownership with it on
// every write (Set: Added, Removed, Whole) and finds server-side apply
// conflicts with it (Intersect, Paths), and the benchmark workload
// generates realistic managedFields with it (FromJSON, straight from bytes
// for speed). Both name list items the same way (ItemKey).
//
// Invariants:
//  1. A member name is "f:<field>", "k:{…}" or "i:{…}"; "." marks a node
//     that is owned besides its members; a leaf is {}.
//  2. List items are keyed by the first of name, type, ip, key or
//     containerPort they have, encoded as a map[string]any would be.
//  3. Lists whose items are not all objects are leaves (owned whole).
package fieldsv1
