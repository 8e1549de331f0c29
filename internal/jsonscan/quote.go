package jsonscan

import (
	"errors"
	"unicode/utf16"
	"unicode/utf8"
)

const hexDigits = "0123456789abcdef"

// plainASCII marks the bytes AppendQuote copies as they are: ASCII from
// 0x20 up but for '"', '\\' and the HTML characters encoding/json escapes.
var plainASCII = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
	}
	return t
}()

// AppendQuote appends s as a JSON string the way encoding/json writes it
// (HTML characters and U+2028/U+2029 escaped, invalid UTF-8 replaced by
// U+FFFD), so what kube-apiserver's JSON and ours hold compares equal.
func AppendQuote[S ~string | ~[]byte](dst []byte, s S) []byte {
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
			case '\b': // encoding/json since Go 1.22, and so kube-apiserver v1.37
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
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

// AppendUnquote appends the JSON string src (quotes included, as
// ScanString delimits it) unescaped the way encoding/json decodes a string,
// which is what kube-apiserver stores for a JSON body: every byte that is
// not valid UTF-8 and every unpaired surrogate escape becomes U+FFFD
// rather than an error. Copying invalid UTF-8 into protobuf instead would
// hand a protobuf client bytes that a JSON client of the same object never
// sees (kube-apiserver's JSON for it has U+FFFD). Only malformed escapes
// and control characters are errors.
func AppendUnquote(dst, src []byte) ([]byte, error) {
	if len(src) < 2 || src[0] != '"' || src[len(src)-1] != '"' {
		return dst, ErrSyntax
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
