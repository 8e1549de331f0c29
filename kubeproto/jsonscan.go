package kubeproto

import (
	"errors"
	"sort"
	"unicode/utf16"
	"unicode/utf8"
)

// A minimal JSON scanner over a byte slice: it finds where values start and
// end without building anything, so the JSON -> protobuf encoder can route
// each member to its field by slicing the input.

var errJSON = errors.New("invalid JSON")

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func skipSpace(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

// scanString returns the end (after the closing quote) of the string whose
// opening quote is at b[i], and whether it holds escapes.
func scanString(b []byte, i int) (end int, escaped bool, err error) {
	for j := i + 1; j < len(b); j++ {
		switch c := b[j]; {
		case c == '"':
			return j + 1, escaped, nil
		case c == '\\':
			escaped = true
			j++
		case c < 0x20:
			return j, false, errJSON
		}
	}
	return len(b), false, errJSON
}

// scanValue returns the end of the value starting at b[i] (no leading
// space). Nesting deeper than maxDepth is an error.
func scanValue(b []byte, i, depth int) (int, error) { return scanIndexed(b, i, depth, nil) }

// composites records where each object and array of a document starts and
// ends, in document order, so that the encoder steps over a nested value in
// O(log n) instead of scanning it again at every level.
type composites struct {
	opens, ends []int32
	hint        int // the next entry to try first: lookups mostly go in document order
}

// end is the end of the composite value starting at i, or -1.
func (c *composites) end(i int) int {
	k := c.hint
	if k >= len(c.opens) || int(c.opens[k]) != i {
		k = sort.Search(len(c.opens), func(k int) bool { return int(c.opens[k]) >= i })
		if k == len(c.opens) || int(c.opens[k]) != i {
			return -1
		}
	}
	c.hint = k + 1
	return int(c.ends[k])
}

// scanIndexed is scanValue that also records composites in rec (when not
// nil).
func scanIndexed(b []byte, i, depth int, rec *composites) (int, error) {
	if i >= len(b) {
		return i, errJSON
	}
	switch c := b[i]; {
	case c == '"':
		end, _, err := scanString(b, i)
		return end, err
	case c == '{' || c == '[':
		if depth >= maxDepth {
			return i, errors.New("JSON nested too deep")
		}
		if rec == nil {
			return scanComposite(b, i, depth+1, nil)
		}
		k := len(rec.opens)
		rec.opens, rec.ends = append(rec.opens, int32(i)), append(rec.ends, 0)
		end, err := scanComposite(b, i, depth+1, rec)
		rec.ends[k] = int32(end)
		return end, err
	case c == 't':
		return scanLiteral(b, i, "true")
	case c == 'f':
		return scanLiteral(b, i, "false")
	case c == 'n':
		return scanLiteral(b, i, "null")
	case c == '-' || c >= '0' && c <= '9':
		j := i + 1
		for j < len(b) && (b[j] >= '0' && b[j] <= '9' || b[j] == '.' || b[j] == 'e' || b[j] == 'E' || b[j] == '+' || b[j] == '-') {
			j++
		}
		return j, nil
	}
	return i, errJSON
}

func scanLiteral(b []byte, i int, lit string) (int, error) {
	if len(b)-i < len(lit) || string(b[i:i+len(lit)]) != lit {
		return i, errJSON
	}
	return i + len(lit), nil
}

func scanComposite(b []byte, i, depth int, rec *composites) (int, error) {
	obj := b[i] == '{'
	close := byte(']')
	if obj {
		close = '}'
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == close {
		return i + 1, nil
	}
	for {
		var err error
		if obj {
			if i >= len(b) || b[i] != '"' {
				return i, errJSON
			}
			if i, _, err = scanString(b, i); err != nil {
				return i, err
			}
			i = skipSpace(b, i)
			if i >= len(b) || b[i] != ':' {
				return i, errJSON
			}
			i = skipSpace(b, i+1)
		}
		if i, err = scanIndexed(b, i, depth, rec); err != nil {
			return i, err
		}
		i = skipSpace(b, i)
		if i >= len(b) {
			return i, errJSON
		}
		if b[i] == close {
			return i + 1, nil
		}
		if b[i] != ',' {
			return i, errJSON
		}
		i = skipSpace(b, i+1)
	}
}

// member is one name/value pair of an object: name is the raw string
// (without quotes, escapes left in), value the raw value's span.
type member struct {
	name        []byte
	nameEscaped bool
	start, end  int
	nameAt      int
}

// members calls fn for each member of the object at b[i] (no leading
// space) and returns the object's end.
// skipFunc returns the end of the value at b[i]: scanValue, or an
// encoder's lookup in its composites.
type skipFunc func(b []byte, i, depth int) (int, error)

func members(b []byte, i, depth int, skip skipFunc, fn func(m member) error) (int, error) {
	if i >= len(b) || b[i] != '{' {
		return i, errors.New("want a JSON object")
	}
	if depth >= maxDepth {
		return i, errors.New("JSON nested too deep")
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return i + 1, nil
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return i, errJSON
		}
		end, esc, err := scanString(b, i)
		if err != nil {
			return i, err
		}
		m := member{name: b[i+1 : end-1], nameEscaped: esc, nameAt: i}
		i = skipSpace(b, end)
		if i >= len(b) || b[i] != ':' {
			return i, errJSON
		}
		i = skipSpace(b, i+1)
		m.start = i
		if i, err = skip(b, i, depth+1); err != nil {
			return i, err
		}
		m.end = i
		if err := fn(m); err != nil {
			return m.start, err
		}
		i = skipSpace(b, i)
		if i >= len(b) {
			return i, errJSON
		}
		if b[i] == '}' {
			return i + 1, nil
		}
		if b[i] != ',' {
			return i, errJSON
		}
		i = skipSpace(b, i+1)
	}
}

// elements calls fn for each element's span of the array at b[i].
func elements(b []byte, i, depth int, skip skipFunc, fn func(start, end int) error) error {
	if i >= len(b) || b[i] != '[' {
		return errors.New("want a JSON array")
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == ']' {
		return nil
	}
	for {
		end, err := skip(b, i, depth+1)
		if err != nil {
			return err
		}
		if err := fn(i, end); err != nil {
			return err
		}
		i = skipSpace(b, end)
		if i >= len(b) {
			return errJSON
		}
		if b[i] == ']' {
			return nil
		}
		if b[i] != ',' {
			return errJSON
		}
		i = skipSpace(b, i+1)
	}
}

const hexDigits = "0123456789abcdef"

// plainASCII marks the bytes appendQuoted copies as they are: ASCII from
// 0x20 up but for '"', '\\' and the HTML characters encoding/json escapes.
var plainASCII = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
	}
	return t
}()

// appendQuoted appends s as a JSON string the way encoding/json writes it
// (HTML characters and U+2028/U+2029 escaped, invalid UTF-8 replaced by
// U+FFFD), so what kube-apiserver's JSON and ours hold compares equal.
func appendQuoted[S ~string | ~[]byte](dst []byte, s S) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		for i < len(s) && plainASCII[s[i]] {
			i++ // the common case, one table load a byte
		}
		if i == len(s) {
			break
		}
		c := s[i]
		if c < utf8.RuneSelf {
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(string(s[i:min(i+utf8.UTFMax, len(s))]))
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// appendUnquote appends the JSON string src (quotes included, as
// scanString delimits it) unescaped the way encoding/json decodes a string,
// which is what kube-apiserver stores for a JSON body: every byte that is
// not valid UTF-8 and every unpaired surrogate escape becomes U+FFFD
// rather than an error. Copying invalid UTF-8 into protobuf instead would
// hand a protobuf client bytes that a JSON client of the same object never
// sees (kube-apiserver's JSON for it has U+FFFD). Only malformed escapes
// and control characters are errors.
func appendUnquote(dst, src []byte) ([]byte, error) {
	if len(src) < 2 || src[0] != '"' || src[len(src)-1] != '"' {
		return dst, errJSON
	}
	s := src[1 : len(src)-1]
	for i := 0; i < len(s); {
		switch c := s[i]; {
		case c == '\\':
			if i+1 >= len(s) {
				return dst, errors.New("invalid JSON: truncated escape")
			}
			switch e := s[i+1]; e {
			case '"', '\\', '/':
				dst = append(dst, e)
			case 'b':
				dst = append(dst, '\b')
			case 'f':
				dst = append(dst, '\f')
			case 'n':
				dst = append(dst, '\n')
			case 'r':
				dst = append(dst, '\r')
			case 't':
				dst = append(dst, '\t')
			case 'u':
				r, ok := hex4(s[i+2:])
				if !ok {
					return dst, errors.New("invalid JSON: malformed \\u escape")
				}
				i += 6
				if utf16.IsSurrogate(r) {
					r2, ok := rune(-1), false
					if i+1 < len(s) && s[i] == '\\' && s[i+1] == 'u' {
						r2, ok = hex4(s[i+2:])
					}
					if d := utf16.DecodeRune(r, r2); ok && d != utf8.RuneError {
						r, i = d, i+6
					} else {
						r = utf8.RuneError
					}
				}
				dst = utf8.AppendRune(dst, r)
				continue
			default:
				return dst, errors.New("invalid JSON: unknown escape \\" + string(rune(e)))
			}
			i += 2
		case c < 0x20:
			return dst, errors.New("invalid JSON: control character in string")
		case c < utf8.RuneSelf:
			i++
			dst = append(dst, c)
		default:
			r, size := utf8.DecodeRune(s[i:])
			dst = utf8.AppendRune(dst, r) // RuneError for each invalid byte
			i += size
		}
	}
	return dst, nil
}

// hex4 reads the four hex digits of a \\u escape.
func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}
