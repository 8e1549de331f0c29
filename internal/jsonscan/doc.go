// Package jsonscan is the JSON scanner under every hand-written JSON reader
// of the project: meta (Raw and the Sharer find kind, apiVersion and
// metadata without decoding the rest), kubeproto (JSON to protobuf routes
// each member to its field by slicing the input) and internal/fieldsv1
// (managedFields sets straight from an object's bytes). It finds where
// values start and end on a byte slice holding the whole document and
// builds nothing; what a member means is the caller's business.
//
// It sits below all three and knows no Kubernetes type. The formats need
// two ways to step over a value, and only two, because their inputs differ:
//
//   - Skip (ValueEnd, StringEnd, EachMember) is for JSON that has already
//     been validated, by a decoder (meta) or by being json.Marshal's output
//     (fieldsv1). It counts brackets and does not look at what is between
//     them: re-validating the kilobytes of managedFields meta steps over
//     would cost as much as the decode it replaces.
//   - Scan (ScanValue, ScanString, Members, Elements) is for JSON nobody
//     has checked (a request body kubeproto encodes). It checks the
//     structure, bounds nesting by the caller's limit and reports the
//     offset of the first fault.
//
// Both share the lexing of whitespace and strings, and strings are decoded
// and written by one pair, AppendUnquote and AppendQuote, that agree with
// encoding/json (kube-apiserver's JSON codec) byte for byte, invalid UTF-8
// included.
//
// Invariants (each has a test in this package):
//  1. No function reads past the end of the slice it is given, whatever
//     the input: malformed input is an error (or ok == false), never a
//     panic.
//  2. On valid JSON, ValueEnd and ScanValue agree with a full decoder on
//     where every value ends, and EachMember and Members see the members
//     it sees, duplicates included, in order.
//  3. AppendUnquote decodes every string encoding/json decodes to the same
//     text: each byte of invalid UTF-8 and each unpaired surrogate escape
//     becomes U+FFFD. AppendQuote writes what encoding/json's Marshal
//     writes for a string.
//  4. ScanValue refuses nesting deeper than the limit it is given, so that
//     hostile input cannot exhaust the stack; Skip needs no limit, as it
//     does not recurse.
package jsonscan
