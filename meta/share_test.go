package meta_test

import (
	"fmt"
	"reflect"
	"sync"
	"testing"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/meta"
)

// sharedObj has two string maps, one of them nested, and another field, as
// a pod's metadata and spec do.
type sharedObj struct {
	Metadata meta.ObjectMeta `json:"metadata"`
	Spec     struct {
		NodeSelector map[string]string `json:"nodeSelector"`
	} `json:"spec"`
}

func decodeShared(t *testing.T, s *meta.Sharer, in string) sharedObj {
	t.Helper()
	var o sharedObj
	require.NoError(t, json.Unmarshal([]byte(in), &o, json.WithUnmarshalers(s.Unmarshalers()), lenient))
	return o
}

// samePtr reports whether two maps are the same map, not equal copies.
func samePtr(a, b map[string]string) bool {
	return reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(b).UnsafePointer()
}

// freeSlot returns the first map format gives (for 0, 1, …) whose slot of
// s's table is not taken, and takes it.
func freeSlot(s *meta.Sharer, taken map[uint64]bool, format string) string {
	for i := 0; ; i++ {
		v := fmt.Sprintf(format, i)
		if slot := meta.SlotOf(s, v); !taken[slot] {
			taken[slot] = true
			return v
		}
	}
}

func TestSharerGivesEqualMapsOneMap(t *testing.T) {
	s := meta.NewSharer(meta.ShareMaps)
	// Each object's three maps are shared with the next object's only if
	// no two of them fall in one slot of the Sharer's table, where the
	// later replaces the earlier; the slots follow the Sharer's random
	// seed, so the annotations and node selector are picked to fall in
	// slots of their own (left to chance, 52 of 20,000 runs failed).
	labels := `{"app":"web","tier":"front"}`
	taken := map[uint64]bool{meta.SlotOf(s, labels): true}
	annotations, selector := freeSlot(s, taken, `{"a":"%d"}`), freeSlot(s, taken, `{"zone":"z%d"}`)
	obj := `{"metadata":{"name":%q,"labels":` + labels + `,"annotations":` + annotations + `},"spec":{"nodeSelector":` + selector + `}}`
	a := decodeShared(t, s, fmt.Sprintf(obj, "a"))
	b := decodeShared(t, s, fmt.Sprintf(obj, "b"))
	require.Equal(t, map[string]string{"app": "web", "tier": "front"}, a.Metadata.Labels)
	require.True(t, samePtr(a.Metadata.Labels, b.Metadata.Labels), "equal labels are one map")
	require.True(t, samePtr(a.Metadata.Annotations, b.Metadata.Annotations))
	require.True(t, samePtr(a.Spec.NodeSelector, b.Spec.NodeSelector), "every map[string]string goes through the Sharer")

	c := decodeShared(t, s, `{"metadata":{"labels":{"app":"web","tier":"back"}}}`)
	require.Equal(t, map[string]string{"app": "web", "tier": "back"}, c.Metadata.Labels)
	require.False(t, samePtr(a.Metadata.Labels, c.Metadata.Labels))
}

func TestSharerOfNothingGivesEachObjectItsOwnMap(t *testing.T) {
	s := meta.NewSharer(0)
	const obj = `{"metadata":{"labels":{"app":"web"}}}`
	a, b := decodeShared(t, s, obj), decodeShared(t, s, obj)
	require.Equal(t, a.Metadata.Labels, b.Metadata.Labels)
	require.False(t, samePtr(a.Metadata.Labels, b.Metadata.Labels))
	a.Metadata.Labels["app"] = "changed" // the holder's own map
	require.Equal(t, "web", b.Metadata.Labels["app"])
}

// TestSharerDecodesAsTheDefaultDecoder compares the Sharer's maps with the
// default decoder's over the edge cases of JSON objects of strings.
func TestSharerDecodesAsTheDefaultDecoder(t *testing.T) {
	for _, in := range []string{
		`{}`,
		`null`,
		`{"a":"1","b":""}`,
		`{"esc\"aped":"a\\b\u00e9\n","plain":"x"}`,
		`{"a":null}`,
		`{"dup":"first","dup":"second"}`,
		`{ "spaced" : "yes" , "b" : "2" }`,
		`{"a":1}`,
		`{"a":{"nested":"x"}}`,
		`["not","an","object"]`,
		`"a string"`,
	} {
		var want, got, again map[string]string
		werr := json.Unmarshal([]byte(in), &want, lenient)
		s := meta.NewSharer(meta.ShareMaps)
		gerr := json.Unmarshal([]byte(in), &got, json.WithUnmarshalers(s.Unmarshalers()), lenient)
		require.Equal(t, werr != nil, gerr != nil, "%s: errors %v and %v", in, werr, gerr)
		if werr != nil {
			continue // what a failed decode leaves behind is unspecified
		}
		require.Equal(t, want, got, in)
		// Decoded a second time, from the Sharer's table.
		require.NoError(t, json.Unmarshal([]byte(in), &again, json.WithUnmarshalers(s.Unmarshalers()), lenient))
		require.Equal(t, want, again, in)
	}
}

func TestSharerReportsAValueThatIsNotAString(t *testing.T) {
	s := meta.NewSharer(meta.ShareMaps)
	var o sharedObj
	err := json.Unmarshal([]byte(`{"metadata":{"labels":{"app":7}}}`), &o, json.WithUnmarshalers(s.Unmarshalers()))
	var serr *json.SemanticError
	require.ErrorAs(t, err, &serr, "as the default decoder's: %v", err)
	require.Equal(t, "/metadata/labels/app", string(serr.JSONPointer))
	require.Equal(t, `{"metadata":{"labels":{"app":`, `{"metadata":{"labels":{"app":7}}}`[:serr.ByteOffset])
	require.Equal(t, jsontext.Kind('0'), serr.JSONKind)
	require.Equal(t, reflect.TypeFor[string](), serr.GoType)
}

// TestSharerMergesIntoAFilledMapAsTheDefaultDecoder: decoding into a map
// the caller filled merges into it, never into a shared one.
func TestSharerMergesIntoAFilledMapAsTheDefaultDecoder(t *testing.T) {
	s := meta.NewSharer(meta.ShareMaps)
	first := decodeShared(t, s, `{"metadata":{"labels":{"a":"1"}}}`)
	m := map[string]string{"mine": "x"}
	require.NoError(t, json.Unmarshal([]byte(`{"a":"1"}`), &m, json.WithUnmarshalers(s.Unmarshalers())))
	require.Equal(t, map[string]string{"mine": "x", "a": "1"}, m)
	require.Equal(t, map[string]string{"a": "1"}, first.Metadata.Labels, "the shared map is untouched")
}

func TestRawSharesItsMetadataMaps(t *testing.T) {
	s := meta.NewSharer(meta.ShareMaps)
	opts := json.WithUnmarshalers(json.JoinUnmarshalers(meta.SkipManagedFieldsUnmarshalers(), s.Unmarshalers()))
	const obj = `{"kind":"Pod","metadata":{"name":%q,"labels":{"app":"web"},"managedFields":[{"manager":"m"}]}}`
	var a, b meta.Raw
	require.NoError(t, json.Unmarshal(fmt.Appendf(nil, obj, "a"), &a, opts))
	require.NoError(t, json.Unmarshal(fmt.Appendf(nil, obj, "b"), &b, opts))
	require.Equal(t, "b", b.Name)
	require.True(t, samePtr(a.Labels, b.Labels))
	require.NotContains(t, string(a.Bytes()), "managedFields", "joined with the skipper, Raw still drops managedFields")
}

// TestSharerIsSafeForConcurrentUse runs under -race in CI.
func TestSharerIsSafeForConcurrentUse(t *testing.T) {
	s := meta.NewSharer(meta.ShareMaps)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 500 {
				in := fmt.Sprintf(`{"metadata":{"labels":{"g":"%d","i":"%d"}}}`, g, i%300)
				var o sharedObj
				if err := json.Unmarshal([]byte(in), &o, json.WithUnmarshalers(s.Unmarshalers())); err != nil {
					t.Error(err)
					return
				}
				if o.Metadata.Labels["i"] != fmt.Sprint(i%300) {
					t.Errorf("decoded %v from %s", o.Metadata.Labels, in)
					return
				}
			}
		})
	}
	wg.Wait()
}

func FuzzSharerDecodesAsTheDefaultDecoder(f *testing.F) {
	for _, seed := range []string{`{}`, `{"a":"b"}`, `{"a":null,"a":"c"}`, `{"\u0041":"\n"}`, `{"a":1}`, `null`, `[]`} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, in string) {
		var want, got map[string]string
		werr := json.Unmarshal([]byte(in), &want, lenient)
		s := meta.NewSharer(meta.ShareMaps)
		for range 2 { // the second time from the Sharer's table
			got = nil
			gerr := json.Unmarshal([]byte(in), &got, json.WithUnmarshalers(s.Unmarshalers()), lenient)
			if (werr != nil) != (gerr != nil) {
				t.Fatalf("%q: default decoder: %v; Sharer: %v", in, werr, gerr)
			}
			if werr == nil && !reflect.DeepEqual(want, got) {
				t.Fatalf("%q: default decoder: %v; Sharer: %v", in, want, got)
			}
		}
	})
}
