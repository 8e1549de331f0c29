package informer

import (
	"fmt"
	"reflect"

	"github.com/go-json-experiment/json"

	"github.com/zerokube/zerokube/meta"
)

// probeObject is what CheckType decodes: just enough metadata to tell
// whether a type reads it.
const probeObject = `{"apiVersion":"v1","kind":"Probe","metadata":{"name":"zerokube-probe","namespace":"zerokube-probe-ns"}}`

// CheckType reports whether T decodes an object's metadata, by decoding a
// probe object into it and checking that its name and namespace come back.
// A struct that embeds meta.ObjectMeta or meta.SlimMeta without the tag
// json:"metadata" compiles, but its embedded fields are then read from the
// top level of the object, where the server never puts them: every object
// would be cached under the key "". New runs this check; an informer of
// such a type fails Run and WaitForSync with this error instead of syncing.
func CheckType[T any, P meta.PtrObject[T]]() error {
	var obj T
	if err := json.Unmarshal([]byte(probeObject), &obj); err != nil {
		return fmt.Errorf("informer: type %v cannot decode a Kubernetes object: %w", reflect.TypeFor[T](), err)
	}
	p := P(&obj)
	if p.GetName() != "zerokube-probe" || p.GetNamespace() != "zerokube-probe-ns" {
		return fmt.Errorf("informer: type %v does not decode an object's metadata (a probe's name and namespace came back %q and %q): "+
			"embed meta.ObjectMeta or meta.SlimMeta with the tag `json:\"metadata\"`",
			reflect.TypeFor[T](), p.GetName(), p.GetNamespace())
	}
	return nil
}
