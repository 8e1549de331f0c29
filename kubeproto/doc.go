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
//     carry no apiVersion/kind). DecodeList, AppendListMeta, AppendListItem.
//   - A watch (`;stream=watch`): frames of a 4-byte big-endian length and a
//     bare metav1.WatchEvent {1 type, 2 RawExtension{1 raw}}, raw holding the
//     object with its own Magic and Envelope. FrameReader, AppendFrame,
//     DecodeWatchEvent, AppendWatchEvent.
//
// # Invariants
//
//  1. No input makes a decoder panic; a failure is a *DecodeError naming
//     what was decoded, the field path and the byte offset, wrapping one of
//     ErrTruncated, ErrMalformed, ErrNoMagic, ErrUnknownKind, ErrTooLarge.
//  2. Decoders allocate in proportion to the input they were given, never to
//     a length the input claims (FrameReader grows as bytes arrive; nesting
//     is bounded by maxDepth).
//  3. Decoded byte slices alias the input: no copies on the hot path.
//  4. The schema table is constant data (no init work) and is exactly what
//     gen/gen.sh writes from the k8s.io/api version in SchemaVersion.
//  5. Unknown fields are skipped, as protobuf decoders do, so a newer
//     server's additions do not break an older table.
package kubeproto
