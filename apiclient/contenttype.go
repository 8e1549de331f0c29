package apiclient

import (
	"fmt"
	"mime"
	"net/http"
	"strings"

	"github.com/go-json-experiment/json"

	"github.com/zerokube/zerokube/kubeproto"
	"github.com/zerokube/zerokube/meta"
	"github.com/zerokube/zerokube/protodec"
)

// AcceptProtobuf is the Accept header of a request that prefers protobuf:
// protobuf for the built-in kinds, JSON for what has no protobuf form
// (custom resources), the server choosing. It is what client-go's typed
// clients send (rest.Request.UseProtobufAsDefault).
const AcceptProtobuf = kubeproto.ContentType + ", application/json"

// acceptFor is the Accept header of a read decoded by d: JSON alone without
// a protobuf decoder. as, when not "", asks for that meta.k8s.io/v1 form of
// the objects instead of the objects themselves ("PartialObjectMetadataList"
// for a LIST, "PartialObjectMetadata" for a WATCH), with the objects
// themselves in JSON as the last resort, as client-go's metadata client
// asks (k8s.io/client-go/metadata).
func acceptFor(d *protodec.Decoder, as string) string {
	if as != "" {
		params := ";as=" + as + ";g=meta.k8s.io;v=v1"
		if d == nil {
			return "application/json" + params + ",application/json"
		}
		return kubeproto.ContentType + params + ",application/json" + params + ",application/json"
	}
	if d == nil {
		return "application/json"
	}
	return AcceptProtobuf
}

// Request shapes of Metadata.
const (
	asMetadataList = "PartialObjectMetadataList"
	asMetadata     = "PartialObjectMetadata"
)

// as is the as= parameter of a read that asks for metadata only.
func as(metadata bool, form string) string {
	if metadata {
		return form
	}
	return ""
}

// replyMediaType is the reply's media type without parameters, lower case; ""
// when it has none. A watch's ";stream=watch" parameter is dropped too: the
// request says whether it is a watch.
func replyMediaType(resp *http.Response) string {
	ct := resp.Header.Get("Content-Type")
	if ct == "" {
		return ""
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		mt, _, _ = strings.Cut(ct, ";")
		mt = strings.ToLower(strings.TrimSpace(mt))
	}
	return mt
}

// unmarshalStatus decodes the body of an error reply: JSON, or, to a
// request that accepted protobuf, a Status in the protobuf envelope, as
// kube-apiserver answers then.
func unmarshalStatus(contentType string, body []byte, st *meta.Status) error {
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
