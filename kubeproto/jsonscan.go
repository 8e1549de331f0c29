package kubeproto

import "github.com/zerokube/zerokube/internal/jsonscan"

// The JSON -> protobuf encoder reads JSON nobody has validated, so it uses
// internal/jsonscan's checking half (Scan: structure checked, nesting bounded
// by maxDepth, the offset of a fault reported) and its string codec, which
// decodes and writes strings as encoding/json does. These are the names the
// encoder and transcoder call it by.

func skipSpace(b []byte, i int) int { return jsonscan.SkipSpace(b, i) }

// scanString returns the end (after the closing quote) of the string whose
// opening quote is at b[i], and whether it holds escapes.
func scanString(b []byte, i int) (end int, escaped bool, err error) {
	return jsonscan.ScanString(b, i)
}

// scanValue returns the end of the value starting at b[i] (no leading
// space). Nesting deeper than maxDepth is an error.
func scanValue(b []byte, i, depth int) (int, error) {
	return jsonscan.ScanValue(b, i, depth, maxDepth, nil)
}

// composites records where each object and array of a document starts and
// ends, so that the encoder steps over a nested value by lookup.
type composites struct{ jsonscan.Composites }

// end is the end of the composite value starting at i, or -1.
func (c *composites) end(i int) int { return c.Composites.End(i) }

// scanIndexed is scanValue that also records composites in rec (when not
// nil).
func scanIndexed(b []byte, i, depth int, rec *composites) (int, error) {
	if rec == nil {
		return scanValue(b, i, depth)
	}
	return jsonscan.ScanValue(b, i, depth, maxDepth, &rec.Composites)
}

func scanLiteral(b []byte, i int, lit string) (int, error) { return jsonscan.ScanLiteral(b, i, lit) }

// member is one name/value pair of an object: Name is the raw string
// (without quotes, escapes left in), Start and End the raw value's span.
type member = jsonscan.Member

// skipFunc returns the end of the value at b[i]: scanValue, or an
// encoder's lookup in its composites.
type skipFunc = jsonscan.SkipFunc

// members calls fn for each member of the object at b[i] (no leading
// space) and returns the object's end.
func members(b []byte, i, depth int, skip skipFunc, fn func(m member) error) (int, error) {
	return jsonscan.Members(b, i, depth, maxDepth, skip, fn)
}

// elements calls fn for each element's span of the array at b[i].
func elements(b []byte, i, depth int, skip skipFunc, fn func(start, end int) error) error {
	return jsonscan.Elements(b, i, depth, skip, fn)
}

// appendQuoted appends s as a JSON string the way encoding/json writes it
// (HTML characters and U+2028/U+2029 escaped, invalid UTF-8 replaced by
// U+FFFD), so what kube-apiserver's JSON and ours hold compares equal.
func appendQuoted[S ~string | ~[]byte](dst []byte, s S) []byte { return jsonscan.AppendQuote(dst, s) }

// appendUnquote appends the JSON string src (quotes included, as
// scanString delimits it) unescaped the way encoding/json decodes a string,
// which is what kube-apiserver stores for a JSON body: invalid UTF-8 and
// unpaired surrogate escapes become U+FFFD rather than an error. Copying
// invalid UTF-8 into protobuf instead would hand a protobuf client bytes
// that a JSON client of the same object never sees.
func appendUnquote(dst, src []byte) ([]byte, error) { return jsonscan.AppendUnquote(dst, src) }
