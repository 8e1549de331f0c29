package workload

import (
	"fmt"
	"sort"
	"testing"

	"github.com/go-json-experiment/json"
	"github.com/stretchr/testify/require"
)

// The field sets are built from bytes for speed; this is the construction
// they replaced, through generic maps, kept as the model they must match
// byte for byte.

func genericFieldSet(v any) map[string]any {
	var m map[string]any
	if err := json.Unmarshal(mustMarshal(v), &m); err != nil {
		panic(err)
	}
	return genericObjectSet(m, false)
}

func genericObjectSet(m map[string]any, withDot bool) map[string]any {
	out := map[string]any{}
	if withDot {
		out["."] = empty()
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		out["f:"+k] = genericValueSet(m[k])
	}
	return out
}

func genericValueSet(v any) map[string]any {
	switch v := v.(type) {
	case map[string]any:
		return genericObjectSet(v, true)
	case []any:
		out := map[string]any{}
		for _, item := range v {
			m, ok := item.(map[string]any)
			if !ok {
				return empty()
			}
			out[genericItemKey(m)] = genericObjectSet(m, true)
		}
		return out
	}
	return empty()
}

func genericItemKey(m map[string]any) string {
	for _, k := range []string{"name", "type", "ip", "key", "containerPort"} {
		if v, ok := m[k]; ok {
			return "k:" + string(mustMarshal(map[string]any{k: v}))
		}
	}
	return "i:" + string(mustMarshal(m))
}

func TestFieldSetMatchesGenericMaps(t *testing.T) {
	type item struct {
		Name  string         `json:"name,omitempty"`
		Flag  *bool          `json:"flag,omitempty"`
		Key   any            `json:"key,omitempty"`
		Inner map[string]int `json:"inner,omitempty"`
	}
	yes := true
	cases := map[string]any{
		"empty object":                 struct{}{},
		"scalars and null":             map[string]any{"a": 1, "b": "x", "c": nil, "d": false},
		"list of scalars":              map[string]any{"l": []any{"a", 1}, "mixed": []any{map[string]any{"name": "a"}, 2}},
		"empty list":                   map[string]any{"l": []any{}},
		"a name that prefixes another": map[string]any{"a": 1, "a!": 2, "a b": 3},
		"duplicate keys, last wins":    map[string]any{"l": []item{{Name: "a"}, {Name: "a", Flag: &yes}}},
		"keys of every kind": map[string]any{"l": []item{{Key: true}, {Key: map[string]int{"b": 1, "a": 2}},
			{Inner: map[string]int{"z": 1, "y": 2}}, {Name: `quote " and \ back`}}},
	}
	for size := range 4 {
		c := Config{PodSize: []int{SmallPodSize, ArticlePodSize, 9 << 10, 20 << 10}[size], ReplicaSets: 7}.withDefaults()
		for i := range 5 {
			p := c.podWithoutManagedFields(i, 3)
			cases[fmt.Sprintf("pod %d of size %d, spec", i, c.PodSize)] = p.Spec
			cases[fmt.Sprintf("pod %d of size %d, status", i, c.PodSize)] = p.Status
		}
	}
	for name, v := range cases {
		t.Run(name, func(t *testing.T) {
			require.Equal(t, string(mustMarshal(genericFieldSet(v))), string(fieldSet(v, nil)))
		})
	}
}

func TestFieldSetRecordsAtomicListsWhole(t *testing.T) {
	v := map[string]any{
		"tolerations": []map[string]string{{"key": "a"}},
		"containers":  []map[string]string{{"name": "app"}},
		"sources":     map[string]string{"name": "not a list, so not atomic"},
	}
	require.Equal(t, `{"f:containers":{"k:{\"name\":\"app\"}":{".":{},"f:name":{}}},"f:sources":{".":{},"f:name":{}},"f:tolerations":{}}`,
		string(fieldSet(v, atomicLists)))
	require.Contains(t, string(fieldSet(v, nil)), `"f:tolerations":{"k:{\"key\":\"a\"}"`)
}
