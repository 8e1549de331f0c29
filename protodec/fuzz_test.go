package protodec_test

import (
	"bytes"
	"errors"
	"reflect"
	"testing"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/internal/workload"
	"github.com/zerokube/zerokube/kubeproto"
	"github.com/zerokube/zerokube/meta"
	. "github.com/zerokube/zerokube/protodec"
)

// odd declares what the fast path leaves to the JSON decoder: an
// interface, raw JSON, a custom unmarshaler, a tag option it does not
// mirror; and fields of mismatched types.
type odd struct {
	Metadata struct {
		Name   string         `json:"name"`
		Labels any            `json:"labels"`
		Owners jsontext.Value `json:"ownerReferences"`
		Gen    string         `json:"generation"` // a number into a string: both paths fail
		Made   *upper         `json:"creationTimestamp"`
		Fins   []upper        `json:"finalizers"`
	} `json:"metadata"`
	Spec struct {
		Containers []struct {
			Ports []struct {
				Port any `json:"containerPort"`
			} `json:"ports"`
			Probe *struct {
				HTTPGet struct {
					Port any `json:"port"`
				} `json:"httpGet"`
			} `json:"readinessProbe"`
		} `json:"containers"`
		Grace int8 `json:"terminationGracePeriodSeconds,string"`
	} `json:"spec"`
}

// upper decodes a JSON string upper-cased: a type with its own method.
type upper string

func (u *upper) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	*u = upper("U:" + s)
	return nil
}

func fuzzSeeds(f *testing.F) {
	for _, j := range (workload.Config{PodSize: 9 << 10}).Pods(3) {
		f.Add(j)
	}
	f.Add([]byte(`{"metadata":{"name":"a","labels":{"x":"1"},"generation":300},"spec":{"terminationGracePeriodSeconds":30}}`))
	f.Add([]byte(`{"metadata":{"creationTimestamp":"2026-01-01T00:00:00Z","finalizers":["f"]},"spec":{"containers":[{"name":"c","ports":[{"containerPort":1}],"readinessProbe":{"httpGet":{"port":"http"}}}]}}`))
}

// FuzzDecodesAsTheJSONPath checks, for every pod JSON kubeproto's
// transcoder encodes, that decoding the protobuf into a Go type gives what
// decoding the protobuf's JSON form (the JSON kube-apiserver would send
// for it) gives, or fails where that fails (for odd, at the same path).
func FuzzDecodesAsTheJSONPath(f *testing.F) {
	fuzzSeeds(f)
	m, _ := kubeproto.MessageFor("v1", "Pod")
	f.Fuzz(func(t *testing.T, js []byte) {
		pb, err := kubeproto.AppendProto(nil, m, js)
		if err != nil {
			return // not a pod the transcoder encodes
		}
		j2, err := kubeproto.AppendJSON(nil, m, pb)
		if err != nil {
			t.Fatalf("the transcoder cannot read back what it wrote: %v", err)
		}
		same[workload.Pod](t, m, pb, j2)
		same[workload.SlimPod](t, m, pb, j2)
		same[meta.Raw](t, m, pb, j2)
		same[odd](t, m, pb, j2, true)
	})
}

// same checks that T decodes alike from the protobuf and its JSON form,
// or fails on both; and, with samePath, at the same path. samePath needs a
// T with at most one value that can fail per top-level section (as odd):
// with two, each path names the first it meets, and protobuf's field order
// is not always its JSON form's.
func same[T any](t *testing.T, m kubeproto.Message, pb, j2 []byte, samePath ...bool) {
	t.Helper()
	opts := meta.SkipManagedFields()
	var fromJSON, fromProto T
	jerr := json.Unmarshal(j2, &fromJSON, lenient, opts)
	perr := New(Options{SkipManagedFields: true, JSON: opts}).Unmarshal(m, pb, &fromProto)
	if (jerr == nil) != (perr == nil) {
		t.Fatalf("%T: JSON path error %v, protobuf path error %v\njson: %s", fromJSON, jerr, perr, j2)
	}
	if jerr == nil && !equal(fromJSON, fromProto) {
		t.Fatalf("%T differs:\n json %+v\nproto %+v\njson: %s", fromJSON, fromJSON, fromProto, j2)
	}
	var se *json.SemanticError
	if len(samePath) > 0 && errors.As(jerr, &se) && IsContentError(perr) && Path(perr) != string(se.JSONPointer) {
		t.Fatalf("%T: the protobuf path names %q, the JSON path %q\njson error: %v\nprotobuf error: %v\njson: %s",
			fromJSON, Path(perr), se.JSONPointer, jerr, perr, j2)
	}
}

// FuzzHostileBytesNeverPanic decodes arbitrary bytes as a pod into every
// kind of type, and as a message that contains itself (nested past any
// limit): errors are fine, panics and hangs are not.
func FuzzHostileBytesNeverPanic(f *testing.F) {
	m, _ := kubeproto.MessageFor("v1", "Pod")
	for _, j := range (workload.Config{}).Pods(2) {
		pb, _ := kubeproto.AppendProto(nil, m, j)
		f.Add(pb)
	}
	f.Add([]byte{0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f})
	f.Add(nested(f, 3, 0xff))
	tm := templateMessage(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		d := New(Options{Sharer: meta.NewSharer(meta.ShareMaps)})
		_ = d.Unmarshal(m, b, new(workload.Pod))
		_ = d.Unmarshal(m, b, new(workload.SlimPod))
		_ = d.Unmarshal(m, b, new(meta.Raw))
		_ = d.Unmarshal(m, b, new(odd))
		_ = d.Unmarshal(tm, b, new(template))
	})
}

// equal compares by reflect.DeepEqual, through the JSON form for values
// that hold unexported state (meta.Raw's bytes are compared too, as they
// are part of DeepEqual).
func equal(a, b any) bool { return reflect.DeepEqual(a, b) }

// TestInvalidUTF8DecodesAsTheJSONPath: protobuf carries a string's bytes
// as stored, which need not be UTF-8 (an object written in protobuf by
// another client); kube-apiserver's JSON for it holds U+FFFD for each
// invalid byte. Decoding the protobuf gives what decoding that JSON gives,
// in plain strings, map keys and values, and values read through JSON.
func TestInvalidUTF8DecodesAsTheJSONPath(t *testing.T) {
	m, _ := kubeproto.MessageFor("v1", "Pod")
	pb, err := kubeproto.AppendProto(nil, m, []byte(`{"metadata":{"name":"aQQb","labels":{"kQQ":"vQQ"}},`+
		`"spec":{"containers":[{"name":"c","ports":[{"containerPort":1}],"readinessProbe":{"httpGet":{"port":"pQQ"}}}]}}`))
	require.NoError(t, err)
	pb = bytes.ReplaceAll(pb, []byte("QQ"), []byte{0xff, 0xc3}) // a stray byte, then a truncated rune
	j2, err := kubeproto.AppendJSON(nil, m, pb)
	require.NoError(t, err)
	require.Contains(t, string(j2), `"name":"a\ufffd\ufffdb"`)
	same[workload.Pod](t, m, pb, j2)
	same[workload.SlimPod](t, m, pb, j2)
	same[meta.Raw](t, m, pb, j2)
	same[odd](t, m, pb, j2, true)

	var p workload.SlimPod
	require.NoError(t, New(Options{}).Unmarshal(m, pb, &p))
	require.Equal(t, "a\uFFFD\uFFFDb", p.Name)
	require.Equal(t, map[string]string{"k\uFFFD\uFFFD": "v\uFFFD\uFFFD"}, p.Labels)
}
