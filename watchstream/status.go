package watchstream

import (
	"fmt"
	"strings"

	"github.com/go-json-experiment/json"

	"github.com/zerokube/zerokube/kubeproto"
	"github.com/zerokube/zerokube/meta"
	"github.com/zerokube/zerokube/protodec"
)

// DecodeStatus reads the body of an error reply into st: JSON, or, when
// contentType (the reply's Content-Type) says protobuf, a Status in the
// protobuf envelope, as kube-apiserver answers a request that accepted
// protobuf. The client that received the reply does not read it: this
// package reads every reply body, error replies included, so that a
// protobuf Status and a protobuf object are read by the same code.
func DecodeStatus(contentType string, body []byte, st *meta.Status) error {
	if mt, _, _ := strings.Cut(contentType, ";"); strings.TrimSpace(mt) != kubeproto.ContentType {
		return json.Unmarshal(body, st)
	}
	env, err := kubeproto.DecodeEnvelope(body)
	if err != nil {
		return err
	}
	m, ok := kubeproto.MessageFor(env.APIVersion, env.Kind)
	if !ok {
		return fmt.Errorf("%s %s: %w", env.APIVersion, env.Kind, kubeproto.ErrUnknownKind)
	}
	// Errors are rare: a decoder of its own each time keeps no state here.
	return protodec.New(protodec.Options{}).UnmarshalTyped(m, env.APIVersion, env.Kind, env.Raw, st)
}

// ProtobufMediaType is the media type of Kubernetes' protobuf wire, for a
// client that builds Accept headers without importing the codec.
const ProtobufMediaType = kubeproto.ContentType
