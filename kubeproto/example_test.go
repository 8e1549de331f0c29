package kubeproto_test

import (
	"bytes"
	"fmt"

	"github.com/zerokube/zerokube/kubeproto"
)

// A watch stream as kube-apiserver writes it for
// `Accept: application/vnd.kubernetes.protobuf;stream=watch`, read back.
func Example() {
	obj := kubeproto.AppendEnvelope(nil, kubeproto.Envelope{APIVersion: "v1", Kind: "ConfigMap"})
	stream := kubeproto.AppendFrame(nil, kubeproto.AppendWatchEvent(nil, kubeproto.WatchEvent{Type: "ADDED", Object: obj}))

	fr := kubeproto.NewFrameReader(bytes.NewReader(stream), 0)
	msg, _ := fr.Next()
	ev, _ := kubeproto.DecodeWatchEvent(msg)
	env, _ := kubeproto.DecodeEnvelope(ev.Object)
	m, _ := kubeproto.MessageFor(env.APIVersion, env.Kind)
	fmt.Println(ev.Type, env.APIVersion, env.Kind, m.Name())
	// Output: ADDED v1 ConfigMap k8s.io.api.core.v1.ConfigMap
}
