package fieldsv1

import (
	"fmt"
	"testing"

	"github.com/go-json-experiment/json"
	"github.com/stretchr/testify/require"
)

func obj(t *testing.T, s string) map[string]any {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal([]byte(s), &m))
	return m
}

func enc(s *Set) string { return string(mustMarshal(s.ToMap())) }

func TestAddedIsWhatAnUpdateSets(t *testing.T) {
	for _, tc := range []struct{ name, old, cur, want string }{
		{"a create", `{}`, `{"data":{"k":"v"},"metadata":{"labels":{"app":"a"}}}`,
			`{"f:data":{".":{},"f:k":{}},"f:metadata":{".":{},"f:labels":{".":{},"f:app":{}}}}`},
		{"one new key", `{"data":{"k":"v"}}`, `{"data":{"k":"v","k2":"w"}}`, `{"f:data":{"f:k2":{}}}`},
		{"a changed leaf", `{"a":1,"b":2}`, `{"a":1,"b":3}`, `{"f:b":{}}`},
		{"nothing", `{"a":1.0}`, `{"a":1}`, `{}`},
		{"keyed list", `{"c":[{"name":"x","i":"1"}]}`, `{"c":[{"name":"x","i":"2"},{"name":"y"}]}`,
			`{"f:c":{"k:{\"name\":\"x\"}":{"f:i":{}},"k:{\"name\":\"y\"}":{".":{},"f:name":{}}}}`},
		{"scalar list", `{"l":[1]}`, `{"l":[1,2]}`, `{"f:l":{}}`},
		{"empty object is a leaf", `{}`, `{"s":{}}`, `{"f:s":{}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, enc(Added(obj(t, tc.old), obj(t, tc.cur), nil)))
		})
	}
}

func TestRemovedAndSubtract(t *testing.T) {
	old := obj(t, `{"data":{"k":"v","k2":"w"},"c":[{"name":"x"},{"name":"y"}]}`)
	cur := obj(t, `{"data":{"k":"v"},"c":[{"name":"x"}]}`)
	rm := Removed(old, cur)
	require.Equal(t, `{"f:c":{"k:{\"name\":\"y\"}":{}},"f:data":{"f:k2":{}}}`, enc(rm))
	owned := Added(map[string]any{}, old, nil)
	owned.Subtract(rm)
	require.Equal(t, `{"f:c":{"k:{\"name\":\"x\"}":{".":{},"f:name":{}}},"f:data":{".":{},"f:k":{}}}`, enc(owned))
	back := FromMap(owned.ToMap())
	require.Equal(t, enc(owned), enc(back), "a set survives its encoding")
}

func TestWholeWithoutDotsIsAnAppliedConfiguration(t *testing.T) {
	require.Equal(t, `{"f:c":{"k:{\"name\":\"x\"}":{".":{},"f:name":{}}},"f:data":{"f:k3":{}}}`,
		enc(Whole(obj(t, `{"data":{"k3":"v"},"c":[{"name":"x"}]}`))))
}

func TestStructsDoNotOwnThemselves(t *testing.T) {
	got := Added(map[string]any{}, obj(t, `{"spec":{"a":1,"sel":{"x":"y"}}}`), Maps{"sel": true})
	require.Equal(t, `{"f:spec":{"f:a":{},"f:sel":{".":{},"f:x":{}}}}`, enc(got))
}

func TestIntersectKeepsWhatBothOwn(t *testing.T) {
	owner := FromMap(obj(t, `{"f:data":{".":{},"f:k":{},"f:shared":{}},"f:c":{"k:{\"name\":\"x\"}":{".":{},"f:image":{}}}}`))
	changed := Added(obj(t, `{"data":{"k":"1","shared":"s"},"c":[{"name":"x","image":"a"}]}`),
		obj(t, `{"data":{"k":"2","shared":"s","new":"n"},"c":[{"name":"x","image":"b"}]}`), nil)
	got := owner.Intersect(changed)
	require.Equal(t, `{"f:c":{"k:{\"name\":\"x\"}":{"f:image":{}}},"f:data":{"f:k":{}}}`, enc(got),
		"a map's own '.' and fields set to the same value are not changed; a new key is nobody's")
	require.True(t, owner.Intersect(&Set{}).Empty())
}

func TestPathsVisitOwnMembersBeforeDeeperOnes(t *testing.T) {
	s := FromMap(obj(t, `{"f:spec":{"f:template":{"f:x":{}},"f:replicas":{}},"f:data":{".":{},"f:a":{}},"f:b":{}}`))
	var got []string
	for _, p := range s.Paths() {
		got = append(got, fmt.Sprint(p))
	}
	require.Equal(t, []string{"[f:b]", "[f:data]", "[f:data f:a]", "[f:spec f:replicas]", "[f:spec f:template f:x]"}, got)
}

func TestDifferenceUnderAndNodesOwned(t *testing.T) {
	a := FromMap(obj(t, `{"f:data":{"f:k1":{},"f:k2":{}},"f:c":{"k:{\"name\":\"x\"}":{".":{},"f:name":{}}}}`))
	b := FromMap(obj(t, `{"f:data":{"f:k2":{}}}`))
	require.Equal(t, `{"f:c":{"k:{\"name\":\"x\"}":{".":{},"f:name":{}}},"f:data":{"f:k1":{}}}`, enc(Difference(a, b)))
	require.True(t, b.Under([]string{"f:data"}))
	require.False(t, b.Under([]string{"f:c"}))
	require.Equal(t, `{"f:c":{".":{},"k:{\"name\":\"x\"}":{".":{},"f:name":{}}},"f:data":{".":{},"f:k1":{},"f:k2":{}}}`,
		enc(a.NodesOwned()))
}
