package meta

import (
	"errors"

	"github.com/zerokube/zerokube/internal/jsonscan"
)

// This file is meta's view of internal/jsonscan's Skip half, the scanner
// for JSON a decoder has already validated (Raw and the Sharer call it by
// these names), and appendWithout, the one piece of scanning that is
// meta's own.

// errScan is returned by the scanner on input that is not the valid JSON its
// callers promise; it guards the index arithmetic, it is not a validator.
var errScan = errors.New("meta: malformed JSON object")

// memberFunc is called by eachMember for each member of an object: start is
// where the member begins (its name's opening quote), name its quoted name,
// at where its value begins (see jsonscan.MemberFunc).
type memberFunc = jsonscan.MemberFunc

// eachMember walks the members of the JSON object that starts at b[i] (after
// any whitespace), in order, until fn says stop, and returns the index just
// past the object's closing brace, or where the walk stopped.
//
// b must already be valid JSON (Raw validates it first). This is what lets Raw
// decode an object in one pass: it finds "kind", "apiVersion" and "metadata"
// by bracket counting (internal/jsonscan's Skip half, which trusts what a
// decoder validated), decodes only those, and stops as soon as it has them,
// which on objects from kube-apiserver is before spec and status. The index
// checks make malformed input an error, never a panic.
func eachMember(b []byte, i int, fn memberFunc) (int, error) {
	end, ok := jsonscan.EachMember(b, i, fn)
	if !ok {
		return 0, errScan
	}
	return end, nil
}

// skipMember is the memberFunc result for a value the caller does not read.
func skipMember(b []byte, at int) (int, bool) {
	end, ok := jsonscan.ValueEnd(b, at)
	if !ok {
		return -1, false
	}
	return end, true
}

// valueEnd returns the index just past the value starting at b[i].
func valueEnd(b []byte, i int) (int, bool) { return jsonscan.ValueEnd(b, i) }

// appendWithout appends to dst the JSON object that starts at b[i] without
// its members named name (quoted), and returns the index just past that
// object in b. b must be valid JSON. Raw uses it to hand the metadata decoder
// metadata without managedFields: copying the kilobyte that remains is
// cheaper than having the decoder tokenize the kilobytes it would skip.
func appendWithout(dst, b []byte, i int, name string) ([]byte, int, error) {
	dst = append(dst, '{')
	first := true
	end, err := eachMember(b, i, func(start int, n []byte, at int) (int, bool) {
		vend, more := skipMember(b, at)
		if !more || string(canonicalName(n)) == name {
			return vend, more
		}
		if !first {
			dst = append(dst, ',')
		}
		first = false
		dst = append(dst, b[start:vend]...)
		return vend, true
	})
	return append(dst, '}'), end, err
}
