package jsonscan

import (
	stdjson "encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// unquoteCases are JSON strings whose decoding encoding/json (and so
// kube-apiserver, which decodes request bodies with a fork of it) settles
// without an error, invalid UTF-8 and lone surrogates included.
var unquoteCases = []string{
	`""`, `"plain"`, `"tab\there"`, `"\"\\\/\b\f\n\r\t"`, `"\u00e9\u4e2d"`, `"\u00E9"`,
	`"\ud83d\ude00"`,         // a surrogate pair: one rune
	`"a\ud800b"`,             // a lone high surrogate
	`"\udc00"`,               // a lone low surrogate
	`"\ud800\u0041"`,         // a high surrogate, then no low one
	`"\ud800\ud800\udc00"`,   // a lone high surrogate, then a pair
	"\"a\x80b\"",             // a stray continuation byte
	"\"\xff\xfe\"",           // two invalid bytes: two U+FFFD
	"\"\xe4\xb8\"",           // a truncated three-byte rune
	"\"\xed\xa0\x80\"",       // a surrogate encoded in UTF-8
	"\"ok \xe4\xb8\xad ok\"", // valid multi-byte text
}

func TestUnquoteDecodesAsEncodingJSON(t *testing.T) {
	for _, c := range unquoteCases {
		var want string
		require.NoError(t, stdjson.Unmarshal([]byte(c), &want), "%q", c)
		got, err := AppendUnquote([]byte("prefix"), []byte(c))
		require.NoError(t, err, "%q", c)
		require.Equal(t, "prefix"+want, string(got), "%q", c)
	}
}

func TestUnquoteRefusesWhatEncodingJSONRefuses(t *testing.T) {
	for _, c := range []string{`"\x41"`, `"\u12"`, `"\u12g4"`, "\"a\x01\"", `"a\"`, `"\'"`, `"`, `x"`, `"x`} {
		var s string
		require.Error(t, stdjson.Unmarshal([]byte(c), &s), "%q", c)
		_, err := AppendUnquote(nil, []byte(c))
		require.Error(t, err, "%q", c)
	}
}

// FuzzUnquoteAsEncodingJSON: wherever encoding/json decodes a JSON
// string, AppendUnquote decodes it to the same text and ScanString finds
// its end.
func FuzzUnquoteAsEncodingJSON(f *testing.F) {
	for _, c := range unquoteCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		_, _ = AppendUnquote(nil, b) // never panics
		var want string
		if len(b) < 2 || b[0] != '"' || stdjson.Unmarshal(b, &want) != nil {
			return
		}
		end, _, err := ScanString(b, 0)
		if err != nil || end != len(b) {
			return // more than one JSON string (encoding/json allows trailing space)
		}
		got, err := AppendUnquote(nil, b)
		if err != nil {
			t.Fatalf("%q: encoding/json decodes it to %q, AppendUnquote fails: %v", b, want, err)
		}
		if string(got) != want {
			t.Fatalf("%q: encoding/json %q, AppendUnquote %q", b, want, got)
		}
	})
}

var quoteCases = []string{
	"", "plain", "tab\there\nand\r", `"quoted" \back\`, "<a>&b", "\u2028\u2029", "\x00\x01\x1f\x7f",
	"\u00e9\u4e2d\U0001F600", "a\x80b", "\xff\xfe", "\xe4\xb8", "\xed\xa0\x80", "\b\f\\b",
	"\uFFFD", // a valid U+FFFD is copied, not escaped
}

func TestQuoteWritesAsEncodingJSON(t *testing.T) {
	for _, c := range quoteCases {
		checkQuote(t, c)
	}
}

// FuzzQuoteAsEncodingJSON: AppendQuote writes what encoding/json's Marshal
// writes for every string, valid UTF-8 or not (\b and \f as Go 1.22 and
// later write them, and so kube-apiserver v1.37.2: a config map's value
// a\bb\fc<d came back from it as "a\\bb\\fc\\u003cd"), and the result
// decodes back.
func FuzzQuoteAsEncodingJSON(f *testing.F) {
	for _, c := range quoteCases {
		f.Add(c)
	}
	f.Fuzz(func(t *testing.T, s string) { checkQuote(t, s) })
}

func checkQuote(t *testing.T, s string) {
	t.Helper()
	want, err := stdjson.Marshal(s)
	require.NoError(t, err)
	got := AppendQuote([]byte("prefix"), s)
	require.Equal(t, "prefix"+string(want), string(got), "%q", s)
	require.Equal(t, string(got), string(AppendQuote([]byte("prefix"), []byte(s))), "%q as []byte", s)
	back, err := AppendUnquote(nil, got[len("prefix"):])
	require.NoError(t, err, "%q", s)
	var std string
	require.NoError(t, stdjson.Unmarshal(want, &std))
	require.Equal(t, std, string(back), "%q", s)
}

// quoteFragments are pieces of text that cover every way encoding/json
// writes a string: each escape it writes (\b \f \n \r \t \" \\, \u00XX
// for the other control characters, \u003c \u003e \u0026 for HTML, \u2028
// \u2029, \ufffd for each byte of invalid UTF-8) and what it copies as is
// (plain ASCII, DEL, valid multi-byte runes, U+FFFD itself when valid, a
// rune one byte short of U+2028).
var quoteFragments = func() []string {
	out := []string{
		"\b", "\f", "\n", "\r", "\t", `"`, `\`, "<", ">", "&", "\u2028", "\u2029",
		"\x80", "\xff", "\xc3", "\xe2\x80", "\xed\xa0\x80", "\xf4\x90\x80\x80", // invalid: U+FFFD per byte
		"a", "/", "\x7f", "é", "中", "\U0001F600", "\uFFFD", "\u2027", "\u202a", "\xe2\x80\xa8\xa8",
	}
	for c := range 0x20 {
		out = append(out, string(rune(c)))
	}
	return out
}()

// FuzzQuoteFragmentsAsEncodingJSON builds strings from quoteFragments, one
// per input byte, so that every escape is a byte away from any input:
// plain fuzzing of strings met a valid U+FFFD (which is copied, not
// escaped) in none of 2.68 million inputs.
func FuzzQuoteFragmentsAsEncodingJSON(f *testing.F) {
	f.Add([]byte{0, 1, 2})
	f.Fuzz(func(t *testing.T, picks []byte) {
		var b strings.Builder
		for _, p := range picks {
			b.WriteString(quoteFragments[int(p)%len(quoteFragments)])
		}
		checkQuote(t, b.String())
	})
}

// TestQuoteWritesEveryEscapeAsEncodingJSON: each fragment alone, between
// plain text, and after each other fragment.
func TestQuoteWritesEveryEscapeAsEncodingJSON(t *testing.T) {
	for _, a := range quoteFragments {
		checkQuote(t, a)
		checkQuote(t, "x"+a+"y")
		for _, b := range quoteFragments {
			checkQuote(t, a+b)
		}
	}
}
