package storage

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/zerokube/zerokube/meta"
)

// FuzzContinueToken decodes arbitrary continue tokens: no panic, a
// BadRequest for anything the server did not make, and its own tokens
// round-trip.
func FuzzContinueToken(f *testing.F) {
	f.Add(EncodeContinue(12, "default/a"), int64(12), "default/a")
	f.Add("", int64(0), "")
	f.Add("!!!", int64(-1), "\x00")
	f.Add("eyJ2IjoibWV0YS5rOHMuaW8vdjEifQ", int64(1<<62), strings.Repeat("z", 300))
	f.Fuzz(func(t *testing.T, token string, rv int64, start string) {
		if _, err := DecodeContinue(token); err != nil && !meta.IsBadRequest(err) {
			t.Fatalf("%q: %v is not a BadRequest", token, err)
		}
		if !utf8.ValidString(start) {
			return // keys come from stored objects, decoded from JSON: always valid UTF-8
		}
		got, err := DecodeContinue(EncodeContinue(rv, start))
		if err != nil {
			t.Fatalf("own token for rv %d start %q does not decode: %v", rv, start, err)
		}
		if got.RV != rv || got.Start != start {
			t.Fatalf("round trip: rv %d start %q became rv %d start %q", rv, start, got.RV, got.Start)
		}
	})
}
