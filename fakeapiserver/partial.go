package fakeapiserver

import (
	"bytes"
	"fmt"
	"mime"
	"net/http"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/zerokube/zerokube/kubeproto"
	"github.com/zerokube/zerokube/meta"
)

// A client that needs objects' metadata only (client-go's metadata
// client, zerokube's informer of a metadata-only type) asks for
// "application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,
// application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1, application/json"
// (PartialObjectMetadata for a get or a watch). kube-apiserver then answers
// a meta.k8s.io/v1 PartialObjectMetadataList whose items, each of kind
// PartialObjectMetadata and apiVersion meta.k8s.io/v1, carry the objects'
// metadata alone, with the list's resourceVersion, continue and
// remainingItemCount; a watch's every object (bookmarks too) becomes a
// PartialObjectMetadata (k8s.io/apiserver's handlers, asPartialObjectMetadata
// and asPartialObjectMetadataList). The fake makes the same answer from
// the JSON its handlers write, as it makes Tables (table.go), and encodes
// it in protobuf when that clause came first: meta.k8s.io/v1 has a
// protobuf form for every resource, custom ones included.

// partialKinds are the as= values a verb may ask for.
var partialKinds = map[string]string{"get": "PartialObjectMetadata", "watch": "PartialObjectMetadata",
	"list": "PartialObjectMetadataList"}

// wantsPartial reports whether the first media type of accept the fake can
// serve asks for metadata only, and whether in protobuf. A clause that
// asks for the form of another verb (a list asked for as
// PartialObjectMetadata) is chosen all the same and fails with 406
// NotAcceptable, as on kube-apiserver, whose negotiation allows either
// form and whose transform then refuses the mismatch.
func wantsPartial(accept, verb string) (partial, proto bool, err error) {
	want, ok := partialKinds[verb]
	if !ok {
		return false, false, nil
	}
	for part := range strings.SplitSeq(accept, ",") {
		mt, params, perr := mime.ParseMediaType(strings.TrimSpace(part))
		if perr != nil || (mt != "application/json" && mt != kubeproto.ContentType && mt != "*/*" && mt != "application/*") {
			continue
		}
		switch as := params["as"]; {
		case as == "":
			return false, false, nil
		case params["g"] != "meta.k8s.io" || params["v"] != "v1" || mt != "application/json" && mt != kubeproto.ContentType:
			continue
		case as == want:
			return true, mt == kubeproto.ContentType, nil
		case as == "PartialObjectMetadata" || as == "PartialObjectMetadataList":
			return false, false, meta.NewStatusError(http.StatusNotAcceptable, reasonNotAcceptable,
				fmt.Sprintf("you requested %s, but the requested object is %s", as, map[bool]string{true: "a list", false: "not a list"}[verb == "list"]))
		}
	}
	return false, false, nil
}

// partialWriter turns the JSON a handler writes into PartialObjectMetadata:
// a get's or a list's body is kept and converted in finish, a watch's
// events one line at a time.
type partialWriter struct {
	http.ResponseWriter
	watch  bool
	proto  bool
	frames *protoFrames // a protobuf watch's encoder
	code   int
	body   bytes.Buffer
}

// asPartial wraps w when r asks for metadata only; the request is changed
// to ask the handler for plain, uncompressed JSON.
func (s *Server) asPartial(w http.ResponseWriter, r *http.Request, verb string) (*partialWriter, *http.Request, error) {
	partial, proto, err := wantsPartial(r.Header.Get("Accept"), verb)
	if !partial {
		return nil, r, err
	}
	r = r.Clone(r.Context())
	r.Header.Set("Accept", "application/json")
	r.Header.Del("Accept-Encoding")
	pw := &partialWriter{ResponseWriter: w, watch: verb == "watch", proto: proto}
	if pw.watch && proto {
		m, _ := kubeproto.MessageFor("meta.k8s.io/v1", "PartialObjectMetadata")
		pw.frames = &protoFrames{res: m}
	}
	return pw, r, nil
}

func (pw *partialWriter) WriteHeader(code int) {
	if pw.code != 0 {
		return
	}
	pw.code = code
	if pw.watch && code == http.StatusOK && pw.proto {
		pw.Header().Set("Content-Type", kubeproto.WatchContentType)
	}
	if pw.watch || code != http.StatusOK {
		pw.ResponseWriter.WriteHeader(code)
	}
}

func (pw *partialWriter) Write(p []byte) (int, error) {
	if pw.code == 0 {
		pw.WriteHeader(http.StatusOK)
	}
	if pw.code != http.StatusOK { // a Status: pass it on
		return pw.ResponseWriter.Write(p)
	}
	pw.body.Write(p)
	if pw.watch {
		return len(p), pw.convertEvents()
	}
	return len(p), nil
}

func (pw *partialWriter) Flush() {
	if f, ok := pw.ResponseWriter.(http.Flusher); ok && (pw.watch || pw.code != http.StatusOK) {
		f.Flush()
	}
}

// convertEvents writes every complete event line held, its object as a
// PartialObjectMetadata (ERROR events pass unchanged).
func (pw *partialWriter) convertEvents() error {
	for {
		line, _, ok := bytes.Cut(pw.body.Bytes(), []byte("\n"))
		if !ok {
			return nil
		}
		out := partialEvent(line)
		pw.body.Next(len(line) + 1)
		var err error
		if pw.frames != nil {
			_, err = pw.ResponseWriter.Write(kubeproto.AppendFrame(nil, pw.frames.event(out)))
		} else {
			_, err = pw.ResponseWriter.Write(append(out, '\n'))
		}
		if err != nil {
			return err
		}
	}
}

// partialFrames is partialEvent for each line of frames.
func partialFrames(frames []byte) []byte {
	var out []byte
	for line := range bytes.SplitSeq(bytes.TrimSuffix(frames, []byte("\n")), []byte("\n")) {
		out = append(append(out, partialEvent(line)...), '\n')
	}
	return out
}

// partialEvent is an event line with its object as PartialObjectMetadata;
// a line that is no event (a fault's garbage) and ERROR events stay as
// they are.
func partialEvent(line []byte) []byte {
	var ev struct {
		Type   string         `json:"type"`
		Object *partialSource `json:"object"`
	}
	if json.Unmarshal(line, &ev) != nil || ev.Type == "ERROR" || ev.Object == nil {
		return line
	}
	b, err := json.Marshal(partialEventOut{Object: ev.Object.partial("PartialObjectMetadata"), Type: ev.Type}, deterministic)
	if err != nil {
		return line
	}
	return b
}

// partialSource is what a PartialObjectMetadata keeps of an object (or a
// list): its metadata, as written. The rest of the object is skipped
// unread: decoding it whole, as a map, cost the fake 300-400 µs a pod of
// a metadata-only LIST (kube-apiserver: about 50, bench/shapes).
type partialSource struct {
	Metadata jsontext.Value `json:"metadata"`
}

// partialOut is a PartialObjectMetadata, fields in the order the fake's
// deterministic encoding writes a map's keys (sorted), so that its bytes
// are those of the same object written as a map.
type partialOut struct {
	APIVersion string         `json:"apiVersion"`
	Kind       string         `json:"kind"`
	Metadata   jsontext.Value `json:"metadata"`
}

// partialEventOut is a watch event of a PartialObjectMetadata.
type partialEventOut struct {
	Object partialOut `json:"object"`
	Type   string     `json:"type"`
}

// partial is the PartialObjectMetadata(List) of kind made of src.
func (src *partialSource) partial(kind string) partialOut {
	m := src.Metadata
	if len(m) == 0 {
		m = jsontext.Value("null") // no metadata: as a map's missing key reads
	}
	return partialOut{APIVersion: "meta.k8s.io/v1", Kind: kind, Metadata: m}
}

// partialListOut is a PartialObjectMetadataList.
type partialListOut struct {
	APIVersion string         `json:"apiVersion"`
	Items      []partialOut   `json:"items"`
	Kind       string         `json:"kind"`
	Metadata   jsontext.Value `json:"metadata"`
}

// finish writes the PartialObjectMetadata(List) of a get or list whose
// body was kept.
func (pw *partialWriter) finish(s *Server) {
	if pw.watch || pw.code != http.StatusOK {
		return
	}
	var doc struct {
		partialSource
		Items *[]partialSource `json:"items"` // nil: not a list
	}
	if err := json.Unmarshal(pw.body.Bytes(), &doc); err != nil {
		s.writeError(pw.ResponseWriter, nil, err)
		return
	}
	var out any = doc.partial("PartialObjectMetadata")
	if doc.Items != nil {
		items := make([]partialOut, len(*doc.Items))
		for i := range *doc.Items {
			items[i] = (*doc.Items)[i].partial("PartialObjectMetadata")
		}
		l := doc.partial("PartialObjectMetadataList")
		out = partialListOut{APIVersion: l.APIVersion, Items: items, Kind: l.Kind, Metadata: l.Metadata}
	}
	b, err := json.Marshal(out, deterministic)
	if err == nil && pw.proto {
		b, err = kubeproto.AppendObjectProto(nil, b)
		pw.Header().Set("Content-Type", kubeproto.ContentType)
	} else {
		pw.Header().Set("Content-Type", "application/json")
	}
	if err != nil {
		s.writeError(pw.ResponseWriter, nil, err)
		return
	}
	pw.Header().Set("Content-Length", strconv.Itoa(len(b)))
	pw.ResponseWriter.WriteHeader(http.StatusOK)
	_, _ = pw.ResponseWriter.Write(b)
}
