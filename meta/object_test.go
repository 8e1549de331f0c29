package meta_test

import (
	"testing"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/meta"
)

type slimPod struct {
	meta.TypeMeta
	meta.ObjectMeta `json:"metadata"`
	Status          struct {
		Phase string `json:"phase"`
	} `json:"status"`
}

const podJSON = `{"kind":"Pod","apiVersion":"v1","metadata":{"name":"web-1","namespace":"default","resourceVersion":"42","labels":{"app":"web"},"creationTimestamp":"2023-06-03T14:19:21Z","managedFields":[{"manager":"kubectl"}]},"spec":{"containers":[{"name":"c","image":"nginx"}]},"status":{"phase":"Running"}}`

func TestSlimStructDecodesOnlyDeclaredFields(t *testing.T) {
	var p slimPod
	require.NoError(t, json.Unmarshal([]byte(podJSON), &p))
	var obj meta.Object = &p
	require.Equal(t, "default/web-1", meta.Key(obj))
	require.Equal(t, "Pod", p.Kind)
	require.Equal(t, "42", p.ResourceVersion)
	require.Equal(t, "Running", p.Status.Phase)
	require.Equal(t, 2023, p.CreationTimestamp.Year())
}

func TestRawRoundTripsByteForByte(t *testing.T) {
	var r meta.Raw
	require.NoError(t, json.Unmarshal([]byte(podJSON), &r))
	require.Equal(t, "web-1", r.Name)
	require.Equal(t, "Pod", r.Kind)
	require.Equal(t, map[string]string{"app": "web"}, r.Labels)
	require.Nil(t, r.ManagedFields, "managedFields must not be held twice")
	out, err := json.Marshal(&r)
	require.NoError(t, err)
	require.Equal(t, podJSON, string(out))
}

func TestRawRejectsNonObjects(t *testing.T) {
	_, err := meta.NewRaw([]byte(`[1,2]`))
	require.ErrorContains(t, err, "want a JSON object")
}

func TestKeyAndSplitKey(t *testing.T) {
	for _, tc := range []struct{ ns, name, key string }{
		{"default", "a", "default/a"},
		{"", "node-1", "node-1"},
	} {
		obj := &slimPod{ObjectMeta: meta.ObjectMeta{Namespace: tc.ns, Name: tc.name}}
		require.Equal(t, tc.key, meta.Key(obj))
		require.Equal(t, tc.key, meta.JoinKey(tc.ns, tc.name))
		ns, name := meta.SplitKey(tc.key)
		require.Equal(t, tc.ns, ns)
		require.Equal(t, tc.name, name)
	}
}

func TestGroupVersionIsTheAPIVersionObjectsCarry(t *testing.T) {
	require.Equal(t, "v1", meta.GVR{Version: "v1", Resource: "pods"}.GroupVersion())
	require.Equal(t, "apps/v1", meta.GVR{Group: "apps", Version: "v1", Resource: "deployments"}.GroupVersion())
}

func TestStatusErrorHelpers(t *testing.T) {
	gone := meta.NewStatusError(410, meta.ReasonExpired, "too old resource version: 1 (5)")
	require.True(t, meta.IsGone(gone))
	require.True(t, meta.IsResourceExpired(gone))
	require.False(t, meta.IsNotFound(gone))
	require.Equal(t, int32(410), meta.Code(gone))
	bare := meta.NewStatusError(404, "", "")
	require.True(t, meta.IsNotFound(bare))
	tooLarge := meta.NewStatusError(504, meta.ReasonTimeout, "Too large resource version")
	tooLarge.Status.Details = &meta.StatusDetails{RetryAfterSeconds: 1,
		Causes: []meta.StatusCause{{Type: meta.CauseResourceVersionTooLarge}}}
	require.True(t, meta.IsTooLargeResourceVersion(tooLarge))
	d, ok := meta.RetryAfter(tooLarge)
	require.True(t, ok)
	require.Equal(t, "1s", d.String())
}

func TestZeroNumbersAreOmittedWhenEncoding(t *testing.T) {
	out, err := json.Marshal(&slimPod{ObjectMeta: meta.ObjectMeta{Name: "a"}})
	require.NoError(t, err)
	require.NotContains(t, string(out), "generation")
	out, err = json.Marshal(meta.Status{Message: "m"})
	require.NoError(t, err)
	require.NotContains(t, string(out), "code")
}

func TestManagedFieldsAreKeptVerbatimOrSkipped(t *testing.T) {
	var kept slimPod
	require.NoError(t, json.Unmarshal([]byte(podJSON), &kept))
	require.Equal(t, `[{"manager":"kubectl"}]`, string(kept.ManagedFields))
	out, err := json.Marshal(&kept)
	require.NoError(t, err)
	require.Contains(t, string(out), `"managedFields":[{"manager":"kubectl"}]`)

	var skipped slimPod
	require.NoError(t, json.Unmarshal([]byte(podJSON), &skipped, meta.SkipManagedFields()))
	require.Nil(t, skipped.ManagedFields)
	require.Equal(t, "web-1", skipped.Name, "the rest of the metadata is still decoded")
	out, err = json.Marshal(&skipped)
	require.NoError(t, err)
	require.NotContains(t, string(out), "managedFields")
}

// slimMetaPod is what a user who needs only names, labels and a phase
// declares: meta.SlimMeta instead of ObjectMeta.
type slimMetaPod struct {
	meta.SlimMeta `json:"metadata"`
	Status        struct {
		Phase string `json:"phase"`
	} `json:"status"`
}

func TestSlimMetaKeepsWhatObjectNeedsAndDropsManagedFields(t *testing.T) {
	var p slimMetaPod
	require.NoError(t, json.Unmarshal([]byte(podJSON), &p))
	var obj meta.Object = &p
	require.Equal(t, "default/web-1", meta.Key(obj))
	require.Equal(t, "42", obj.GetResourceVersion())
	require.Equal(t, map[string]string{"app": "web"}, obj.GetLabels())
	require.Equal(t, "Running", p.Status.Phase)
	_, full := obj.(meta.FullMeta)
	require.False(t, full, "SlimMeta is not a FullMeta: code asking for ObjectMeta must leave it alone")

	out, err := json.Marshal(&p)
	require.NoError(t, err)
	require.JSONEq(t, `{"metadata":{"name":"web-1","namespace":"default","resourceVersion":"42","labels":{"app":"web"}},"status":{"phase":"Running"}}`,
		string(out), "Ignored is never encoded")

	// Ignored still validates what it skips: a broken managedFields is an
	// error, not silently accepted.
	err = json.Unmarshal([]byte(`{"metadata":{"managedFields":[1,}}`), &p)
	require.Error(t, err)
}

func TestRawUnderSkipManagedFieldsDropsThemFromItsBytes(t *testing.T) {
	want := `{"kind":"Pod","apiVersion":"v1","metadata":{"name":"web-1","namespace":"default","resourceVersion":"42","labels":{"app":"web"},"creationTimestamp":"2023-06-03T14:19:21Z"},"spec":{"containers":[{"name":"c","image":"nginx"}]},"status":{"phase":"Running"}}`
	own := json.UnmarshalFromFunc(func(*jsontext.Decoder, *slimPod) error { return nil })
	for name, opts := range map[string]json.Options{
		"alone": meta.SkipManagedFields(),
		// The informer's unmarshaler joined with a caller's own.
		"joined": json.WithUnmarshalers(json.JoinUnmarshalers(own, skipper(t))),
	} {
		t.Run(name, func(t *testing.T) {
			src := []byte(podJSON)
			var r meta.Raw
			require.NoError(t, json.Unmarshal(src, &r, opts))
			require.Equal(t, want, string(r.Bytes()))
			require.Equal(t, "web-1", r.Name)
			require.Equal(t, map[string]string{"app": "web"}, r.Labels)
			src[2] = 'X' // the Raw keeps a copy, not the decoder's buffer
			require.Equal(t, want, string(r.Bytes()))
		})
	}
	t.Run("kept without the option", func(t *testing.T) {
		var r meta.Raw
		require.NoError(t, json.Unmarshal([]byte(podJSON), &r, json.WithUnmarshalers(own)))
		require.Equal(t, podJSON, string(r.Bytes()))
	})
	t.Run("null metadata", func(t *testing.T) {
		var r meta.Raw
		require.NoError(t, json.Unmarshal([]byte(`{"kind":"Pod","metadata":null}`), &r, meta.SkipManagedFields()))
		require.Equal(t, `{"kind":"Pod","metadata":null}`, string(r.Bytes()))
	})
}

// skipper takes SkipManagedFields' unmarshalers out of its options.
func skipper(t *testing.T) *json.Unmarshalers {
	u, ok := json.GetOption(meta.SkipManagedFields(), json.WithUnmarshalers)
	require.True(t, ok)
	return u
}
