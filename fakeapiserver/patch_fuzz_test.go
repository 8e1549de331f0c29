package fakeapiserver

import (
	"testing"

	"github.com/go-json-experiment/json"
	"github.com/zerokube/zerokube/fakeapiserver/internal/storage"
	"github.com/zerokube/zerokube/meta"
)

// FuzzApplyPatch feeds arbitrary patches of each type to applyPatch: it
// must return an error or an object that encodes, and never panic.
func FuzzApplyPatch(f *testing.F) {
	f.Add(uint8(0), `{"metadata":{"name":"a","labels":{"x":"y"}},"spec":{"containers":[{"name":"c"}]}}`, `{"metadata":{"labels":{"x":null,"z":"1"}}}`)
	f.Add(uint8(1), `{"a":[1,2,3]}`, `[{"op":"add","path":"/a/1","value":9},{"op":"remove","path":"/a/0"},{"op":"move","from":"/a/0","path":"/b"}]`)
	f.Add(uint8(2), `{"spec":{"containers":[{"name":"c","image":"x"}]}}`, `{"spec":{"$setElementOrder/containers":[{"name":"c"}],"containers":[{"name":"c","image":"y"}]}}`)
	f.Add(uint8(1), `{"a":{"b~/c":1}}`, `[{"op":"copy","from":"/a/b~0~1c","path":"/d"},{"op":"test","path":"/d","value":1}]`)
	f.Add(uint8(2), `{"spec":{"containers":[{"name":"a","ports":[{"containerPort":80}]},{"name":"b"}]},"metadata":{"finalizers":["x","y"]}}`,
		`{"spec":{"containers":[{"$patch":"delete","name":"b"},{"name":"a","ports":[{"containerPort":81},{"$patch":"replace"}]}]},`+
			`"metadata":{"$deleteFromPrimitiveList/finalizers":["x"],"$setElementOrder/finalizers":["y","z"],"finalizers":["z"],"$retainKeys":["finalizers"]}}`)
	types := []meta.PatchType{meta.MergePatch, meta.JSONPatch, meta.StrategicMergePatch}
	f.Fuzz(func(t *testing.T, which uint8, cur, patch string) {
		m, err := storage.DecodeObject([]byte(cur))
		if err != nil {
			return
		}
		out, err := applyPatch(podsRes, types[int(which)%len(types)], m, []byte(patch))
		if err != nil {
			return
		}
		if _, err := json.Marshal(out); err != nil {
			t.Fatalf("patched object does not encode: %v", err)
		}
	})
}

func TestJSONPatchOperations(t *testing.T) {
	for _, tc := range []struct{ name, cur, patch, want string }{
		{"add to array end", `{"a":[1]}`, `[{"op":"add","path":"/a/-","value":2}]`, `{"a":[1,2]}`},
		{"insert in array", `{"a":[1,3]}`, `[{"op":"add","path":"/a/1","value":2}]`, `{"a":[1,2,3]}`},
		{"remove nested", `{"a":{"b":1,"c":2}}`, `[{"op":"remove","path":"/a/b"}]`, `{"a":{"c":2}}`},
		{"remove from nested array", `{"a":{"l":[1,2,3]}}`, `[{"op":"remove","path":"/a/l/1"}]`, `{"a":{"l":[1,3]}}`},
		{"replace", `{"a":1}`, `[{"op":"replace","path":"/a","value":"x"}]`, `{"a":"x"}`},
		{"move", `{"a":1}`, `[{"op":"move","from":"/a","path":"/b"}]`, `{"b":1}`},
		{"escaped key", `{"a/b":1}`, `[{"op":"replace","path":"/a~1b","value":2}]`, `{"a/b":2}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := storage.DecodeObject([]byte(tc.cur))
			if err != nil {
				t.Fatal(err)
			}
			out, err := applyPatch(podsRes, meta.JSONPatch, m, []byte(tc.patch))
			if err != nil {
				t.Fatal(err)
			}
			got, _ := json.Marshal(out, deterministic)
			if string(got) != tc.want {
				t.Fatalf("got %s, want %s", got, tc.want)
			}
		})
	}
	for _, bad := range []string{`[{"op":"replace","path":"/nope","value":1}]`, `[{"op":"test","path":"/a","value":2}]`, `[{"op":"bogus","path":"/a"}]`} {
		m, _ := storage.DecodeObject([]byte(`{"a":1}`))
		if _, err := applyPatch(podsRes, meta.JSONPatch, m, []byte(bad)); err == nil {
			t.Fatalf("%s: want an error", bad)
		}
	}
}

var podsRes = &Resource{GVR: meta.GVR{Version: "v1", Resource: "pods"}, Kind: "Pod", Namespaced: true}
