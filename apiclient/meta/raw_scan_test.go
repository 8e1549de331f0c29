package meta

import (
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
	err := json.Unmarshal(b, &h, skipManagedFields)
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
