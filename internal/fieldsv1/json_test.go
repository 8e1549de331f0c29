package fieldsv1

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestFromJSONReadsStringsWhole: brackets, quotes and backslashes inside
// strings, names with escapes (json.Marshal writes control characters as
// \u00XX) and nested lists are read as JSON, not as bytes.
func TestFromJSONReadsStringsWhole(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"a\"b":"x}\"]","c\\":{"d":"]}"}}`,
			`{"f:a\"b":{},"f:c\\":{".":{},"f:d":{}}}`},
		{`{"\u0001":1,"\t":[1,"]"],"z":null}`,
			`{"f:\t":{},"f:\u0001":{},"f:z":{}}`},
		{`{"l":[{"name":"x\"}]"},{"name":"y","v":"\\"}]}`,
			`{"f:l":{"k:{\"name\":\"x\\\"}]\"}":{".":{},"f:name":{}},"k:{\"name\":\"y\"}":{".":{},"f:name":{},"f:v":{}}}}`},
		{`{"l":[{"v":{"w":"}"}},{"v":[1]}],"m":{}}`,
			`{"f:l":{"i:{\"v\":[1]}":{".":{},"f:v":{}},"i:{\"v\":{\"w\":\"}\"}}":{".":{},"f:v":{".":{},"f:w":{}}}},"f:m":{".":{}}}`},
	} {
		require.Equal(t, tc.want, string(FromJSON([]byte(tc.in), nil)), tc.in)
	}
}

func TestItemKeyReadsStringsWhole(t *testing.T) {
	require.Equal(t, `k:{"name":"a\"]}"}`, ItemKey([]byte(`{"x":"]","name":"a\"]}"}`)))
	require.Equal(t, `k:{"key":{"a":"}","b":1}}`, ItemKey([]byte(`{"key":{"b":1,"a":"}"}}`)))
	require.Equal(t, `i:{"x":"\\","y":[1,{"z":"}"}]}`, ItemKey([]byte(`{"y":[1,{"z":"}"}],"x":"\\"}`)))
}

func TestFromJSONPanicsOnWhatJSONMarshalNeverWrites(t *testing.T) {
	for _, in := range []string{`{"a":`, `{"a":[1,`, `{"a":"open`} {
		require.Panics(t, func() { FromJSON([]byte(in), nil) }, in)
	}
}
