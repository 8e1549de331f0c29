package meta

import (
	"errors"
)

// errScan is returned by the scanner on input that is not the valid JSON its
// callers promise; it guards the index arithmetic, it is not a validator.
var errScan = errors.New("meta: malformed JSON object")

// memberFunc is called by eachMember for each member of an object: start is
// where the member begins (its name's opening quote), name its quoted name,
// at where its value begins. It returns the index just past the value (most
// callers use valueEnd; one that walks a nested object itself returns where
// that walk ended, so the object is not scanned twice) and whether to go on.
// An end below zero reports malformed input.
type memberFunc func(start int, name []byte, at int) (end int, more bool)

// eachMember walks the members of the JSON object that starts at b[i] (after
// any whitespace), in order, until fn says stop, and returns the index just
// past the object's closing brace, or where the walk stopped.
//
// b must already be valid JSON (Raw validates it first). This is what lets Raw
// decode an object in one pass: it finds "kind", "apiVersion" and "metadata"
// by bracket counting, decodes only those, and stops as soon as it has them,
// which on objects from kube-apiserver is before spec and status. The index
// checks make malformed input an error, never a panic.
func eachMember(b []byte, i int, fn memberFunc) (int, error) {
	i = skipSpace(b, i)
	if i >= len(b) || b[i] != '{' {
		return 0, errScan
	}
	i++
	for {
		i = skipSpace(b, i)
		if i < len(b) && b[i] == ',' {
			i = skipSpace(b, i+1)
		}
		if i >= len(b) {
			return 0, errScan
		}
		if b[i] == '}' {
			return i + 1, nil
		}
		start := i
		end, ok := stringEnd(b, i)
		if !ok {
			return 0, errScan
		}
		i = skipSpace(b, end)
		if i >= len(b) || b[i] != ':' {
			return 0, errScan
		}
		i = skipSpace(b, i+1)
		vend, more := fn(start, b[start:end], i)
		if vend < i || vend > len(b) {
			return 0, errScan
		}
		if !more {
			return vend, nil
		}
		i = vend
	}
}

// skipMember is the memberFunc result for a value the caller does not read.
func skipMember(b []byte, at int) (int, bool) {
	end, ok := valueEnd(b, at)
	if !ok {
		return -1, false
	}
	return end, true
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
