package kubeproto_test

import (
	"bytes"
	"fmt"

	"github.com/zerokube/zerokube/kubeproto"
)

// A watch stream as kube-apiserver writes it for
// `Accept: application/vnd.kubernetes.protobuf;stream=watch`, read back
// into JSON.
func Example() {
	// What the server would send: a ConfigMap, enveloped, in a WatchEvent,
	// in a frame.
	cm := []byte(`{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"demo","namespace":"default"},"data":{"a":"1"}}`)
	obj, err := kubeproto.AppendObjectProto(nil, cm)
	if err != nil {
		panic(err)
	}
	stream := kubeproto.AppendFrame(nil, kubeproto.AppendWatchEvent(nil, kubeproto.WatchEvent{Type: "ADDED", Object: obj}))

	// What a client does with it.
	fr := kubeproto.NewFrameReader(bytes.NewReader(stream), 0)
	msg, _ := fr.Next()
	ev, _ := kubeproto.DecodeWatchEvent(msg)
	env, _ := kubeproto.DecodeEnvelope(ev.Object)
	m, _ := kubeproto.MessageFor(env.APIVersion, env.Kind)
	js, _ := kubeproto.AppendObjectJSON(nil, ev.Object)
	fmt.Println(ev.Type, m.Name(), len(obj), "bytes of protobuf")
	fmt.Println(string(js))
	// Output:
	// ADDED k8s.io.api.core.v1.ConfigMap 64 bytes of protobuf
	// {"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"demo","namespace":"default"},"data":{"a":"1"}}
}
