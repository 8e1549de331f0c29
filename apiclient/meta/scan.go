package meta

import (
	"errors"
)

// errScan is returned by the scanner on input that is not the valid JSON its
// callers promise; it guards the index arithmetic, it is not a validator.
var errScan = errors.New("meta: malformed JSON object")

// member is one member of a JSON object as eachMember finds it.
type member struct {
	name, value []byte // the quoted name and the raw value
	start, end  int    // the member's span in the object: name to end of value
}

// eachMember calls fn with each member of the JSON object b, in order, until
// fn returns false.
//
// b must already be valid JSON (Raw validates it first). This is what lets Raw
// decode an object in one pass: it finds "kind", "apiVersion" and "metadata"
// by bracket counting, decodes only those, and stops as soon as it has them,
// which on objects from kube-apiserver is before spec and status. The index
// checks make malformed input an error, never a panic.
func eachMember(b []byte, fn func(m member) bool) error {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return errScan
	}
	i++
	for {
		i = skipSpace(b, i)
		if i < len(b) && b[i] == ',' {
			i = skipSpace(b, i+1)
		}
		if i >= len(b) {
			return errScan
		}
		if b[i] == '}' {
			return nil
		}
		start := i
		end, ok := stringEnd(b, i)
		if !ok {
			return errScan
		}
		name := b[i:end]
		i = skipSpace(b, end)
		if i >= len(b) || b[i] != ':' {
			return errScan
		}
		i = skipSpace(b, i+1)
		vend, ok := valueEnd(b, i)
		if !ok {
			return errScan
		}
		if !fn(member{name: name, value: b[i:vend], start: start, end: vend}) {
			return nil
		}
		i = vend
	}
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\n' || b[i] == '\r' || b[i] == '\t') {
		i++
	}
	return i
}

// stringEnd returns the index just past the string starting at b[i] == '"'.
//
// A plain loop, not bytes.IndexByte: metadata is mostly strings of a few to
// a few dozen bytes (managedFields' "f:…" names above all), where the call
// and setup of the vectorized search cost more than they save. The byte after
// a backslash is skipped, which is enough in valid JSON: no escape sequence
// contains a quote after its first byte.
func stringEnd(b []byte, i int) (int, bool) {
	if i >= len(b) || b[i] != '"' {
		return 0, false
	}
	for k := i + 1; k < len(b); k++ {
		switch b[k] {
		case '"':
			return k + 1, true
		case '\\':
			k++
		}
	}
	return 0, false
}

// structural marks the bytes valueEnd must look at inside an object or
// array; one table load skips everything else.
var structural = [256]bool{'"': true, '{': true, '[': true, '}': true, ']': true}

// valueEnd returns the index just past the value starting at b[i].
func valueEnd(b []byte, i int) (int, bool) {
	if i >= len(b) {
		return 0, false
	}
	switch b[i] {
	case '"':
		return stringEnd(b, i)
	case '{', '[':
		depth := 0
		for k := i; k < len(b); k++ {
			c := b[k]
			if !structural[c] {
				continue
			}
			switch c {
			case '"':
				end, ok := stringEnd(b, k)
				if !ok {
					return 0, false
				}
				k = end - 1
			case '{', '[':
				depth++
			default: // '}', ']'
				depth--
				if depth == 0 {
					return k + 1, true
				}
			}
		}
		return 0, false
	}
	k := i
	for k < len(b) && b[k] != ',' && b[k] != '}' && b[k] != ']' &&
		b[k] != ' ' && b[k] != '\n' && b[k] != '\r' && b[k] != '\t' {
		k++
	}
	return k, k > i
}

// appendWithout appends to dst the JSON object obj without its members named
// name (obj must be valid JSON). Raw uses it to hand the metadata decoder
// metadata without managedFields: copying the kilobyte that remains is
// cheaper than having the decoder tokenize the kilobytes it would skip.
func appendWithout(dst, obj []byte, name string) ([]byte, error) {
	dst = append(dst, '{')
	first := true
	err := eachMember(obj, func(m member) bool {
		if string(canonicalName(m.name)) == name {
			return true
		}
		if !first {
			dst = append(dst, ',')
		}
		first = false
		dst = append(dst, obj[m.start:m.end]...)
		return true
	})
	return append(dst, '}'), err
}
