// Package kubeproto is a protobuf codec for Kubernetes' built-in kinds with
// no Kubernetes dependency: the wire forms kube-apiserver uses
// (`application/vnd.kubernetes.protobuf`) and a schema table, generated
// from k8s.io/api, that says for every message which field number carries
// which JSON field, so a message can be read or written without generated
// Go types.
//
// # Where it sits in the data path
//
//	kube-apiserver ──HTTP──▶ apiclient ─┬─ JSON ──────────▶ user's struct
//	                                    └─ protobuf ─▶ kubeproto ─▶ user's struct
//	fakeapiserver ◀── kubeproto (encodes stored JSON as protobuf, decodes kubectl's bodies)
//
// kubeproto knows bytes and the schema only: no HTTP, no informers.
//
// # Wire forms
//
//   - A GET, LIST, write answer or Status: Magic ("k8s\x00") then a
//     runtime.Unknown (Envelope: apiVersion, kind, raw = the object's own
//     message). DecodeEnvelope, AppendEnvelope.
//   - A list's raw: field 1 ListMeta, field 2 each item's message (items
//     carry no apiVersion/kind). AppendListMeta, AppendListItem; a
//     reader walks it with AppendJSON or protodec, item by item.
//   - A watch (`;stream=watch`): frames of a 4-byte big-endian length and a
//     bare metav1.WatchEvent {1 type, 2 RawExtension{1 raw}}, raw holding the
//     object with its own Magic and Envelope. FrameReader, AppendFrame,
//     DecodeWatchEvent, AppendWatchEvent.
//
// # Transcoding
//
// AppendJSON and AppendProto turn any message of the table into its JSON
// and back, driven by the schema: no generated Go types, no reflection.
// AppendObjectJSON and AppendObjectProto do the same for a whole enveloped
// object, with "kind" and "apiVersion" first. Checked against kube-apiserver
// v1.37.2 (testdata/real): for every answer recorded there, the protobuf
// answer transcodes to the JSON answer (same members, same order), and the
// JSON answer transcodes to the very bytes of the protobuf answer.
//
// AppendObjectProtoLoose is for a fake server holding objects a real one
// would refuse: a value that does not fit its field is written with a wire
// type no field uses, so a client refuses that object alone.
//
// The JSON written is what encoding/json writes for the Go struct
// kube-apiserver would decode: members in the Go struct's order, omitempty
// honoured, nil pointers and slices null, a list's empty items [],
// metav1.Time as RFC 3339 seconds, MicroTime with microseconds, Duration as
// a Go duration, Quantity and IntOrString in their JSON forms, byte fields
// in base64, RawExtension and FieldsV1 as embedded JSON (an enveloped
// protobuf object inside a RawExtension becomes its JSON).
//
// # Schema
//
// The table (zz_schema.go, 1237 messages and 341 kinds of k8s.io/api
// v0.37.2 plus apimachinery's meta/v1, runtime, resource and intstr) is
// written by gen/gen.sh, which runs gen/main.go in a throwaway module: the
// root module never depends on k8s.io. TestCommittedSchemaIsWhatGenWrites
// regenerates it offline and compares; it skips when the module cache lacks
// k8s.io/api. Custom resources are not in the table: kube-apiserver serves
// them as JSON only.
//
// # Speed
//
// The field reader is this package's own: on the same walk of a 500-pod
// PodList it took 1.35-1.6x less time than protowire's (BenchmarkWalk).
// AppendJSON reads about 195 MB/s of protobuf; AppendProto validates its
// JSON in one pass that records where every object and array ends, then
// reads each level's own members only (BenchmarkAppendObject*).
//
// # Invariants
//
//  1. No input makes a decoder panic; a failure is a *DecodeError naming
//     what was decoded, the field path and the byte offset, wrapping one of
//     ErrTruncated, ErrMalformed, ErrNoMagic, ErrUnknownKind, ErrTooLarge.
//  2. Decoders allocate in proportion to the input they were given, never to
//     a length the input claims (FrameReader grows as bytes arrive; nesting
//     is bounded by maxDepth, objects embedded in RawExtensions counted on
//     from where they sit). AppendJSON writes at most about 150 bytes of
//     JSON per input byte: a 2-byte empty occurrence of a message writes its
//     zero value, at most 300 bytes for any message of the table.
//  3. Decoded byte slices alias the input: no copies on the hot path.
//  4. The schema table is constant data (no init work) and is exactly what
//     gen/gen.sh writes from the k8s.io/api version in SchemaVersion.
//  5. Unknown fields are skipped, as protobuf decoders do, so a newer
//     server's additions do not break an older table; JSON members the
//     message does not declare are skipped too.
//  6. AppendProto writes fields in field-number order and writes every
//     non-pointer field even when the JSON left it out, as Kubernetes'
//     generated marshallers do, so its output equals kube-apiserver's bytes
//     for the same object.
//  7. The package holds no mutable state: every function is safe for
//     concurrent use.
package kubeproto
