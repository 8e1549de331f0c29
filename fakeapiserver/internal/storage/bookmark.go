package storage

import (
	"strconv"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/zerokube/zerokube/meta"
	"github.com/zerokube/zerokube/watchstream"
)

// BookmarkFrame encodes a BOOKMARK for res at rv. Its object is what
// kube-apiserver sends: the kind's empty object with only
// metadata.resourceVersion set (and the initial-events-end annotation on
// the bookmark that ends a watch's initial events). The watch cache makes
// it with the resource's NewFunc and sets the version alone (apiserver
// storage/cacher: Cacher.dispatchEvents and
// setInitialEventsEndBookmarkIfRequested; cacheWatcher.convertToWatchEvent
// adds the annotation), so whatever the kind's empty value encodes to
// besides metadata (kindShells) comes along.
func BookmarkFrame(res *Resource, rv int64, initialEnd bool) []byte {
	apiVersion := res.APIVersion()
	shell := kindShells[gvk{apiVersion, res.Kind}]
	b := make([]byte, 0, 128+len(shell))
	b = append(b, `{"kind":`...)
	b, _ = jsontext.AppendQuote(b, res.Kind)
	b = append(b, `,"apiVersion":`...)
	b, _ = jsontext.AppendQuote(b, apiVersion)
	b = append(b, `,"metadata":{"resourceVersion":"`...)
	b = strconv.AppendInt(b, rv, 10)
	b = append(b, '"')
	if initialEnd {
		b = append(b, `,"annotations":{"`+meta.InitialEventsEndAnnotation+`":"true"}`...)
	}
	b = append(b, '}')
	b = append(b, shell...)
	b = append(b, '}')
	return watchstream.AppendFrame(nil, meta.Bookmark, b)
}

// gvk names a kind by its apiVersion.
type gvk struct{ apiVersion, kind string }

// kindShells holds, for each built-in kind the fake serves, the members an
// empty object of the kind encodes to after its metadata, in the order
// kube-apiserver v1.37.2 writes them (observed on its bookmarks; the
// conformance scenario watch/bookmark-shells compares every one). They are
// not simply the v1 type's zero value: the cacher's empty object is the
// internal type's, converted to v1, so a Deployment's spec.replicas, a plain
// int32 inside, comes out as 0, and a Service's status.loadBalancer as {}.
// Kinds not listed (ConfigMap, Secret, and every registered custom resource,
// whose cacher object is unstructured) carry kind, apiVersion and metadata
// only.
var kindShells = map[gvk]string{
	{"v1", "Pod"}:       `,"spec":{"containers":null},"status":{}`,
	{"v1", "Namespace"}: `,"spec":{},"status":{}`,
	{"v1", "Service"}:   `,"spec":{},"status":{"loadBalancer":{}}`,
	{"v1", "Node"}: `,"spec":{},"status":{"daemonEndpoints":{"kubeletEndpoint":{"Port":0}},"nodeInfo":{"machineID":"",` +
		`"systemUUID":"","bootID":"","kernelVersion":"","osImage":"","containerRuntimeVersion":"","kubeletVersion":"",` +
		`"kubeProxyVersion":"","operatingSystem":"","architecture":""}}`,
	{"v1", "Event"}: `,"involvedObject":{},"source":{},"firstTimestamp":null,"lastTimestamp":null,"eventTime":null,` +
		`"reportingComponent":"","reportingInstance":""`,
	{"apps/v1", "Deployment"}: `,"spec":{"replicas":0,"selector":null,"template":{"metadata":{},"spec":{"containers":null}},` +
		`"strategy":{}},"status":{}`,
	{"apps/v1", "ReplicaSet"}: `,"spec":{"replicas":0,"selector":null,"template":{"metadata":{},"spec":{"containers":null}}},` +
		`"status":{"replicas":0}`,
	{"coordination.k8s.io/v1", "Lease"}: `,"spec":{}`,
}
