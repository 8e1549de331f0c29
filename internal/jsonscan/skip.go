package jsonscan

// IsSpace reports whether c is JSON whitespace.
func IsSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// SkipSpace returns the index of the first byte at or after b[i] that is
// not whitespace (len(b) if there is none).
func SkipSpace(b []byte, i int) int {
	for i < len(b) && IsSpace(b[i]) {
		i++
	}
	return i
}

// StringEnd returns the index just past the string starting at b[i] == '"'
// in JSON already validated.
//
// A plain loop, not bytes.IndexByte: metadata is mostly strings of a few to
// a few dozen bytes (managedFields' "f:…" names above all), where the call
// and setup of the vectorized search cost more than they save. The byte after
// a backslash is skipped, which is enough in valid JSON: no escape sequence
// contains a quote after its first byte.
func StringEnd(b []byte, i int) (int, bool) {
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

// structural marks the bytes ValueEnd must look at inside an object or
// array; one table load skips everything else.
var structural = [256]bool{'"': true, '{': true, '[': true, '}': true, ']': true}

// ValueEnd returns the index just past the value starting at b[i] in JSON
// already validated: brackets are counted, not checked. A scalar other
// than a string ends at the next delimiter or whitespace.
func ValueEnd(b []byte, i int) (int, bool) {
	if i >= len(b) {
		return 0, false
	}
	switch b[i] {
	case '"':
		return StringEnd(b, i)
	case '{', '[':
		depth := 0
		for k := i; k < len(b); k++ {
			c := b[k]
			if !structural[c] {
				continue
			}
			switch c {
			case '"':
				end, ok := StringEnd(b, k)
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
	for k < len(b) && b[k] != ',' && b[k] != '}' && b[k] != ']' && !IsSpace(b[k]) {
		k++
	}
	return k, k > i
}

// MemberFunc is called by EachMember for each member of an object: start
// is where the member begins (its name's opening quote), name its quoted
// name, at where its value begins. It returns the index just past the value
// (most callers use ValueEnd; one that walks a nested object itself returns
// where that walk ended, so the object is not scanned twice) and whether to
// go on. An end below at reports malformed input.
type MemberFunc func(start int, name []byte, at int) (end int, more bool)

// EachMember walks the members of the JSON object that starts at b[i]
// (after any whitespace), in order, duplicates included, until fn says
// stop, and returns the index just past the object's closing brace, or
// where the walk stopped; ok is false on input that is not valid JSON as
// far as the walk looked (it guards the index arithmetic, it is not a
// validator: a missing comma goes unnoticed).
func EachMember(b []byte, i int, fn MemberFunc) (end int, ok bool) {
	i = SkipSpace(b, i)
	if i >= len(b) || b[i] != '{' {
		return 0, false
	}
	i++
	for {
		i = SkipSpace(b, i)
		if i < len(b) && b[i] == ',' {
			i = SkipSpace(b, i+1)
		}
		if i >= len(b) {
			return 0, false
		}
		if b[i] == '}' {
			return i + 1, true
		}
		start := i
		end, ok := StringEnd(b, i)
		if !ok {
			return 0, false
		}
		i = SkipSpace(b, end)
		if i >= len(b) || b[i] != ':' {
			return 0, false
		}
		i = SkipSpace(b, i+1)
		vend, more := fn(start, b[start:end], i)
		if vend < i || vend > len(b) {
			return 0, false
		}
		if !more {
			return vend, true
		}
		i = vend
	}
}
