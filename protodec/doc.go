// Package protodec decodes the protobuf of Kubernetes' built-in kinds
// straight into the caller's own Go struct: the slim struct of the fields
// it reads, a whole typed object, or meta.Raw.
//
// It sits where JSON decoding sits on the data path, for replies that came
// in protobuf:
//
//	kube-apiserver ─HTTP─▶ apiclient (LIST pages) ─┐
//	                       watchstream (frames)  ──┴─ protodec ─▶ *T ─▶ informer
//	                                                    │
//	                                        kubeproto (schema table, transcoder)
//
// apiclient and watchstream unwrap the wire forms (the `k8s\x00` envelope,
// list items, watch frames, all kubeproto's); protodec decodes one object's
// message. Fields are matched by their JSON names through kubeproto's
// schema table, so a struct written for JSON decodes protobuf unchanged.
//
// # How
//
// For each Go type and message a Decoder builds a plan once, by
// reflection, and keeps it: for every field number, where the field lives
// in the struct (an offset) and how its bytes become a Go value. Decoding
// then walks the message's tags: a field the struct does not declare is
// stepped over by its length, never parsed; a declared one is written in
// place. Strings, integers, booleans, floats, bytes, nested structs and
// pointers to them, slices, maps with string keys, metav1.Time and
// MicroTime (to time.Time), resource.Quantity (to a string) and
// intstr.IntOrString (to an integer or a string) have fast paths.
//
// Everything else is decoded by its JSON form: a value whose Go type has
// its own unmarshal method (meta.Raw, meta.ManagedFields, a copied
// metav1.Time), an interface, jsontext.Value, a struct whose tags use
// options the fast path does not mirror, or a pairing of wire and Go types
// it does not know (a number into a string). Such a value's message is
// transcoded to the JSON kube-apiserver would have sent for it
// (kubeproto.AppendJSON) and handed to the JSON decoder with the caller's
// options. Correctness never depends on the fast path; it only saves work.
//
// # meta.Raw under protobuf
//
// meta.Raw, which keeps an object's whole JSON, gets the JSON transcoded
// from protobuf: the same JSON value kube-apiserver sends (members in the
// Go struct's order, omitempty honoured; kind and apiVersion first on
// watch events), not necessarily the same bytes. Under SkipManagedFields
// (an informer's default) managedFields are left out of the transcoding and
// the metadata is decoded straight from the protobuf (raw.go), which makes
// a Raw from protobuf cost the client about what a JSON decode of the same
// object does (BenchmarkDecodePods: Raw/protobuf against Raw/json; twice
// that when the whole object went through JSON). It saves the server far more: measured
// on kube-apiserver v1.37.2 (PROTOCOL.md), encoding a 10,000-pod list costs
// it 2.4 s of CPU as JSON and 0.5 s as protobuf, about 190 µs per 19.5 KB
// pod. For the cluster as a whole,
// protobuf is cheaper for Raw too, so Raw informers ask for protobuf like
// the others; Transport.JSON in package informer turns it off.
//
// Invariants:
//  1. A value decodes to what the JSON decoder gives for the protobuf's
//     JSON form, or fails where it fails. That holds for strings that are
//     not UTF-8 too: protobuf carries them as stored, kube-apiserver's JSON
//     has U+FFFD for each invalid byte, and so do the strings decoded here
//     (client-go's protobuf decoding keeps the raw bytes).
//     meta.Raw's bytes included.
//     An intstr.IntOrString of type 1 is a string, of any other type (2
//     and up included, which kube-apiserver's JSON encoder refuses) a
//     number, as client-go's IntValue reads it.
//     [FuzzDecodesAsTheJSONPath, TestTheBenchmarkPodsDecodeAsTheirJSONDoes,
//     TestInvalidUTF8DecodesAsTheJSONPath,
//     TestARawWithoutManagedFieldsIsTheJSONPathsEvenWhenMetadataOccursTwice,
//     FuzzIntOrStringDecodesAsTheJSONPath]
//  2. No input makes the decoder panic; every length is checked against
//     the bytes at hand before use, so allocation follows the input's size,
//     never a length it claims, and nesting is bounded: 100 messages
//     decode, 101 fail, as in the transcoder.
//     A length is checked against its own message, never against bytes
//     past it: one that overruns its message is malformed.
//     [FuzzHostileBytesNeverPanic, TestALengthPastItsMessageFails,
//     FuzzNestedTemplatesDecodeToTheDepthLimit]
//  3. What any conforming protobuf encoder may write decodes as protobuf
//     parsers read it, though kube-apiserver never writes it: packed
//     repeated scalars; a field twice (the last scalar wins, messages
//     merge, maps and lists gathered); a map's entries split by other
//     fields; an entry without key or value; fields in any order; lengths
//     and numbers in more bytes than they need (0x80 0x00 is an empty
//     string, left out as JSON leaves it). [protodec/wire_test.go,
//     FuzzReshapedPodsDecodeAsTheJSONPath, which reshapes whole pods so]
//  4. A Decoder keeps no global state: its plans, and the recent strings
//     it shares between objects, are its own. It is safe for concurrent
//     use.
//  5. Through a meta.Sharer, objects share equal map[string]string values
//     (labels, annotations) as on the JSON path, whether a map's entries
//     come together or split by other fields.
//     [TestASharerSharesEqualLabelMapsAcrossObjects,
//     TestAMapSplitByOtherFieldsIsOneMapAndSharedWithTheWholeOne]
//  6. Errors name the field, its JSON path and its message; IsContentError
//     tells a value that does not fit its Go type (the object may be
//     skipped) from malformed protobuf. Path gives the JSON pointer the
//     JSON decoder gives for the same value in the object's JSON form,
//     list indices and map keys included.
//     [TestAValueThatDoesNotFitIsNamedByItsJSONPointer, FuzzDecodesAsTheJSONPath]
package protodec
