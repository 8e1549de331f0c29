package kubeproto

import (
	"bytes"
	stdjson "encoding/json"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
)

// FuzzQuoteAsEncodingJSON: appendQuoted writes every string as a JSON
// string holding what encoding/json's holds for it (invalid UTF-8 as
// U+FFFD), with the characters encoding/json escapes for HTML, and U+2028
// and U+2029, escaped too: its output never holds them raw.
func FuzzQuoteAsEncodingJSON(f *testing.F) {
	for _, s := range []string{"", "plain", `a"b\c`, "<a href=x>&amp;</a>", "\x00\x01\b\f\n\r\t\x1f\x7f",
		"caf\u00e9 \u2028\u2029 \U0001F600", "\xff\xc3(\xe2\x82", "héllo wörld / path_to-file.yaml"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, s []byte) {
		got := appendQuoted(nil, s)
		if !jsontext.Value(got).IsValid() {
			t.Fatalf("invalid JSON string %q for %q", got, s)
		}
		want, _ := stdjson.Marshal(string(s))
		var g, w string
		if err := stdjson.Unmarshal(got, &g); err != nil {
			t.Fatalf("%q does not decode: %v", got, err)
		}
		_ = stdjson.Unmarshal(want, &w)
		if g != w {
			t.Fatalf("%q holds %q, encoding/json's %q holds %q", got, g, want, w)
		}
		for _, raw := range []string{"<", ">", "&", "\u2028", "\u2029"} {
			if bytes.Contains(got, []byte(raw)) {
				t.Fatalf("%q holds %q unescaped", got, raw)
			}
		}
	})
}
