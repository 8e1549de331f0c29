package meta

import (
	"bytes"
	"errors"
)

// errScan is returned by the scanner on input that is not the valid JSON its
// callers promise; it guards the index arithmetic, it is not a validator.
var errScan = errors.New("meta: malformed JSON object")

// eachMember calls fn with the quoted name and the raw value of each member of
// the JSON object b, in order, until fn returns false.
//
// b must already be valid JSON (Raw validates it first). This is what lets Raw
// decode an object in one pass: it finds "kind", "apiVersion" and "metadata"
// by bracket counting, decodes only those, and stops as soon as it has them,
// which on objects from kube-apiserver is before spec and status. The index
// checks make malformed input an error, never a panic.
func eachMember(b []byte, fn func(name, value []byte) bool) error {
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
		if !fn(name, b[i:vend]) {
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
func stringEnd(b []byte, i int) (int, bool) {
	if i >= len(b) || b[i] != '"' {
		return 0, false
	}
	for k := i + 1; k < len(b); {
		q := bytes.IndexByte(b[k:], '"')
		if q < 0 {
			return 0, false
		}
		k += q
		// The quote closes the string unless an odd run of backslashes
		// escapes it.
		n := 0
		for j := k - 1; j > i && b[j] == '\\'; j-- {
			n++
		}
		if n%2 == 0 {
			return k + 1, true
		}
		k++
	}
	return 0, false
}

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
			switch b[k] {
			case '"':
				end, ok := stringEnd(b, k)
				if !ok {
					return 0, false
				}
				k = end - 1
			case '{', '[':
				depth++
			case '}', ']':
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
