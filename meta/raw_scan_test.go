package meta

import (
	"strings"
	"testing"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/stretchr/testify/require"
)

// slowRaw is the two-pass decode Raw's scanner replaced: the reference the
// scanner must agree with.
func slowRaw(b []byte) (TypeMeta, ObjectMeta, error) {
	var m ObjectMeta
	h := struct {
		TypeMeta
		Metadata *ObjectMeta `json:"metadata"`
	}{Metadata: &m}
	err := json.Unmarshal(b, &h, skipManagedFields, lenient)
	return h.TypeMeta, m, err
}

var rawSeeds = []string{
	`{"kind":"Pod","apiVersion":"v1","metadata":{"name":"a","namespace":"n","labels":{"x":"y"}},"spec":{}}`,
	`{"spec":{"a":["}",{"b":"]"}]},"status":"\"quoted\\\\","metadata":{"name":"late"},"kind":"K"}`,
	`{"meta\u0064ata":{"name":"escaped"},"kind":"K","apiVersion":"v"}`,
	`{"kind":null,"metadata":null}`,
	`{"kind":5}`,
	`{"metadata":{"name":7}}`,
	` { "x" : 1 , "y" : true , "z" : null , "metadata" : { "uid" : "u" } } `,
	`{}`,
	`{"metadata":{"managedFields":[{"manager":"m"}],"name":"a"}}`,
	`{"metadata":{"name":"a","managedFields":[{"f:x":{"\"}":{}}}],"uid":"u"}}`,
	`{"metadata":{"name":"a","managedFields":[]}}`,
	`{"metadata":{"managedFields":null}}`,
	`{"metadata":{"managedFields":[1],"labels":{"a":"b"},"managedFields":[2],"name":"dup"}}`,
	`{"metadata":{"managed\u0046ields":[{"manager":"m"}],"name":"escaped"}}`,
	`{"metadata":{}}`,
	`{"metadata":{"managedFields":5,"name":"wrong type is skipped too"}}`,
}

func TestRawScannerAgreesWithAFullDecode(t *testing.T) {
	for _, s := range rawSeeds {
		checkRawScanner(t, []byte(s))
	}
}

func FuzzRawScanner(f *testing.F) {
	for _, s := range rawSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if !jsontext.Value(b).IsValid() || jsontext.Value(b).Kind() != '{' {
			_, _ = NewRaw(b) // must not panic
			return
		}
		checkRawScanner(t, b)
	})
}

func checkRawScanner(t *testing.T, b []byte) {
	t.Helper()
	tm, m, slowErr := slowRaw(b)
	r, err := NewRaw(b)
	if slowErr != nil {
		require.Error(t, err, "input %s", b)
		return
	}
	require.NoError(t, err, "input %s", b)
	require.Equal(t, tm, r.TypeMeta, "input %s", b)
	require.Equal(t, m, r.ObjectMeta, "input %s", b)
	require.Equal(t, string(b), string(r.Bytes()))
}

func TestAppendWithout(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{}`, `{}`},
		{`{"managedFields":[]}`, `{}`},
		{`{"a":1,"managedFields":[{"x":"]"}],"b":{"c":2}}`, `{"a":1,"b":{"c":2}}`},
		{` { "managedFields" : 1 , "a" : "x" } `, `{"a" : "x"}`},
		{`{"a":1,"managedFields":2,"managedFields":3}`, `{"a":1}`},
		{`{"managed\u0046ields":1,"z":null}`, `{"z":null}`},
	} {
		in := []byte("[" + tc.in + ",1]") // the object inside something else
		got, end, err := appendWithout([]byte("prefix"), in, 1, `"managedFields"`)
		require.NoError(t, err, tc.in)
		require.Equal(t, "prefix"+tc.want, string(got), tc.in)
		require.Equal(t, byte('}'), in[end-1], "end is just past the object")
		require.Equal(t, ",1]", strings.TrimLeft(string(in[end:]), " "))
	}
	_, _, err := appendWithout(nil, []byte(`{"a":`), 0, `"a"`)
	require.Error(t, err, "truncated input is an error, not a panic")
}
