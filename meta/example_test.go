package meta_test

import (
	"fmt"

	"github.com/go-json-experiment/json"

	"github.com/zerokube/zerokube/meta"
)

// A slim type declares the fields it reads. With meta.SlimMeta the decoder
// keeps name, namespace, uid, resourceVersion and labels, reads past
// managedFields in one pass, and drops annotations, owners and timestamps:
// a cache of these pays for what the program uses, nothing more.
func ExampleSlimMeta() {
	type Pod struct {
		meta.SlimMeta `json:"metadata"`
		Status        struct {
			Phase string `json:"phase"`
		} `json:"status"`
	}
	in := `{"kind":"Pod","apiVersion":"v1",
		"metadata":{"name":"web-1","namespace":"shop","resourceVersion":"42",
			"labels":{"app":"web"},"annotations":{"note":"dropped"},
			"managedFields":[{"manager":"kubelet","fieldsV1":{"f:status":{}}}]},
		"spec":{"containers":[{"name":"web","image":"nginx"}]},
		"status":{"phase":"Running"}}`
	var p Pod
	if err := json.Unmarshal([]byte(in), &p); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(meta.Key(&p), p.ResourceVersion, p.Labels["app"], p.Status.Phase)

	// An Object is all zerokube needs to file and select it.
	var obj meta.Object = &p
	sel, _ := meta.ParseLabelSelector("app in (web,api)")
	fmt.Println(sel.Matches(obj.GetLabels()))
	// Output:
	// shop/web-1 42 web Running
	// true
}

// Raw keeps any object whole: its metadata decoded for the cache, the bytes
// as they arrived for whoever needs the rest.
func ExampleRaw() {
	in := `{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"settings","namespace":"shop","resourceVersion":"7"},"data":{"mode":"fast"}}`
	r, err := meta.NewRaw([]byte(in))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(r.Kind, meta.Key(r), r.ResourceVersion)
	var cm struct {
		Data map[string]string `json:"data"`
	}
	if err := r.DecodeInto(&cm); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(cm.Data["mode"], string(r.Bytes()) == in)
	// Output:
	// ConfigMap shop/settings 7
	// fast true
}
