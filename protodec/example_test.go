package protodec_test

import (
	"fmt"

	"github.com/zerokube/zerokube/kubeproto"
	"github.com/zerokube/zerokube/meta"
	"github.com/zerokube/zerokube/protodec"
)

// A slim type written for JSON decodes protobuf unchanged: fields match by
// their JSON names, and what it does not declare is skipped by length.
func Example() {
	type pod struct {
		meta.SlimMeta `json:"metadata"`
		Spec          struct {
			NodeName string `json:"nodeName"`
		} `json:"spec"`
		Status struct {
			Phase string `json:"phase"`
		} `json:"status"`
	}
	m, _ := kubeproto.MessageFor("v1", "Pod")
	// What kube-apiserver would send, made here from JSON.
	pb, _ := kubeproto.AppendProto(nil, m, []byte(`{"metadata":{"name":"web-1","namespace":"shop",
		"labels":{"app":"web"}},"spec":{"nodeName":"node-7","containers":[{"name":"app","image":"nginx"}]},
		"status":{"phase":"Running","podIP":"10.0.0.9"}}`))

	d := protodec.New(protodec.Options{Sharer: meta.NewSharer(meta.ShareMaps), SkipManagedFields: true})
	var p pod
	if err := d.Unmarshal(m, pb, &p); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(meta.Key(&p), p.Labels, p.Spec.NodeName, p.Status.Phase)
	// Output: shop/web-1 map[app:web] node-7 Running
}
