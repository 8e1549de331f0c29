package apiclient

import (
	"mime"
	"net/http"
	"strings"

	"github.com/zerokube/zerokube/watchstream"
)

// AcceptProtobuf is the Accept header of a request that prefers protobuf:
// protobuf for the built-in kinds, JSON for what has no protobuf form
// (custom resources), the server choosing. It is what client-go's typed
// clients send (rest.Request.UseProtobufAsDefault).
const AcceptProtobuf = watchstream.ProtobufMediaType + ", application/json"

// acceptFor is the Accept header of a read: JSON alone unless protobuf
// (the read's watchstream.Options has a protobuf decoder). as, when not "", asks for that meta.k8s.io/v1 form of
// the objects instead of the objects themselves ("PartialObjectMetadataList"
// for a LIST, "PartialObjectMetadata" for a WATCH), with the objects
// themselves in JSON as the last resort, as client-go's metadata client
// asks (k8s.io/client-go/metadata).
func acceptFor(protobuf bool, as string) string {
	if as != "" {
		params := ";as=" + as + ";g=meta.k8s.io;v=v1"
		if !protobuf {
			return "application/json" + params + ",application/json"
		}
		return watchstream.ProtobufMediaType + params + ",application/json" + params + ",application/json"
	}
	if !protobuf {
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
