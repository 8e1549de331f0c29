package protodec

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/go-json-experiment/json"
	"github.com/stretchr/testify/require"
)

// pinned is a validating type: it refuses an image without a version.
type pinned string

func (p *pinned) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	if !strings.Contains(s, ":") {
		return fmt.Errorf("%q is not pinned", s)
	}
	*p = pinned(s)
	return nil
}

// strict declares values some pods do not fit: a validating type in a
// list, in a map and in a list decoded whole by its JSON form, and an
// int32 where the API has an IntOrString.
type strict struct {
	Metadata struct {
		Name       string            `json:"name"`
		Labels     map[string]pinned `json:"labels"`
		Finalizers []pinned          `json:"finalizers"`
	} `json:"metadata"`
	Spec struct {
		Containers []struct {
			Image pinned `json:"image"`
			Probe *struct {
				HTTPGet struct {
					Port int32 `json:"port"`
				} `json:"httpGet"`
			} `json:"readinessProbe"`
		} `json:"containers"`
	} `json:"spec"`
}

// A value that does not fit the type is named by the JSON pointer the JSON
// decoder gives for the object's JSON form: list indices, map keys
// (escaped) and the pointer within a value decoded by its JSON form.
func TestAValueThatDoesNotFitIsNamedByItsJSONPointer(t *testing.T) {
	const ok = `{"image":"a:1"}`
	for _, c := range []struct{ name, pod, path string }{
		{"a list element's field", `{"spec":{"containers":[` + ok + `,` + ok + `,{"image":"nginx"}]}}`,
			"/spec/containers/2/image"},
		{"an IntOrString holds a string for an int32", `{"spec":{"containers":[` + ok + `,{"image":"a:1","readinessProbe":{"httpGet":{"port":"http"}}}]}}`,
			"/spec/containers/1/readinessProbe/httpGet/port"},
		{"a map value, by its escaped key", `{"metadata":{"labels":{"a":"x:1","app.kubernetes.io/name":"web"}}}`,
			"/metadata/labels/app.kubernetes.io~1name"},
		{"a list decoded whole by its JSON form", `{"metadata":{"finalizers":["a:1","b"]}}`,
			"/metadata/finalizers/1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var fromJSON, fromProto strict
			jerr := json.Unmarshal([]byte(c.pod), &fromJSON, lenient)
			var se *json.SemanticError
			require.True(t, errors.As(jerr, &se), "the JSON decoder fails: %v", jerr)
			require.Equal(t, c.path, string(se.JSONPointer), "the JSON decoder's pointer")

			m := podMessage(t)
			perr := New(Options{}).Unmarshal(m, encodeJSON(t, m, c.pod), &fromProto)
			require.Error(t, perr)
			require.True(t, IsContentError(perr), "%v", perr)
			require.Equal(t, c.path, Path(perr), "%v", perr)
		})
	}
}
