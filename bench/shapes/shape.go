package shapes

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/zerokube/zerokube/apiclient"
	"github.com/zerokube/zerokube/apiclient/kubeconfig"
	"github.com/zerokube/zerokube/bench/fleet"
	"github.com/zerokube/zerokube/internal/workload"
	"github.com/zerokube/zerokube/meta"
	"github.com/zerokube/zerokube/protodec"
	"github.com/zerokube/zerokube/watchstream"
)

// Verb is how a shape reads the current state.
type Verb uint8

// The verbs, as the informer's options choose them.
const (
	// ListAtZero is a LIST at resourceVersion "0": the informer's first
	// list by default. kube-apiserver serves it whole from its watch
	// cache, ignoring the limit.
	ListAtZero Verb = iota
	// ListConsistent is a LIST at resourceVersion "" in pages of
	// PageSize (Options.Sync.ConsistentFirstList, and the relist after a 410).
	ListConsistent
	// Stream is a streaming list: a watch with sendInitialEvents=true,
	// read up to its initial-events-end bookmark (Options.Sync.StreamingList).
	Stream
)

// PageSize is the consistent LIST's page size: the informer's default.
const PageSize = 500

var verbNames = [...]string{ListAtZero: "list-rv0", ListConsistent: "list-paged", Stream: "stream"}

func (v Verb) String() string { return verbNames[v] }

// Shape is one request shape.
type Shape struct {
	// Metadata asks for PartialObjectMetadata, decoded into a type with
	// metadata only; otherwise whole pods, decoded into a slim pod
	// (workload.SlimPod).
	Metadata bool
	Verb     Verb
	JSON     bool // JSON only; otherwise protobuf (JSON as the fallback)
	Gzip     bool // Accept-Encoding: gzip
	// PerNode sends one request per node, with fieldSelector
	// spec.nodeName=<node>, as a per-node agent does; otherwise one
	// cluster-wide request without a selector.
	PerNode bool
}

// String names the shape by its five choices, e.g.
// "whole/list-rv0/protobuf/plain/cluster": the key of its samples.
func (s Shape) String() string {
	obj, wire, enc, scope := "whole", "protobuf", "plain", "cluster"
	if s.Metadata {
		obj = "metadata"
	}
	if s.JSON {
		wire = "json"
	}
	if s.Gzip {
		enc = "gzip"
	}
	if s.PerNode {
		scope = "per-node"
	}
	return strings.Join([]string{obj, s.Verb.String(), wire, enc, scope}, "/")
}

// All is every shape: 2 × 3 × 2 × 2 × 2 = 48.
func All() []Shape {
	var out []Shape
	for _, md := range []bool{false, true} {
		for _, v := range []Verb{ListAtZero, ListConsistent, Stream} {
			for _, js := range []bool{false, true} {
				for _, gz := range []bool{false, true} {
					for _, pn := range []bool{false, true} {
						out = append(out, Shape{Metadata: md, Verb: v, JSON: js, Gzip: gz, PerNode: pn})
					}
				}
			}
		}
	}
	return out
}

// Target is the server a run's requests go to.
type Target struct {
	// Plain asks for no gzip (apiclient.Config.DisableCompression), Gzip
	// for gzip: the library's default.
	Plain, Gzip *apiclient.Client
	Ref         apiclient.Ref
	// Nodes are the nodes a per-node shape sends a request for each.
	Nodes []string
	// proto decodes every protobuf reply, as one informer's wire does: it
	// keeps a decode plan per type, built at the first reply.
	proto *protodec.Decoder
}

// NewTarget is the Target of ref over the two clients.
func NewTarget(plain, gzip *apiclient.Client, ref apiclient.Ref, nodes []string) Target {
	return Target{Plain: plain, Gzip: gzip, Ref: ref, Nodes: nodes,
		proto: protodec.New(protodec.Options{SkipManagedFields: true, JSON: meta.SkipManagedFields()})}
}

// Dial is the Target of the pods of cl on the server kubeconfigPath names:
// two clients (gzip asked for, the library's default, or not) without a
// client-side rate limit, and cl's nodes.
func Dial(kubeconfigPath string, cl fleet.Cluster) (Target, error) {
	var cs [2]*apiclient.Client
	for i, disable := range []bool{true, false} {
		cfg, err := kubeconfig.LoadFile(kubeconfigPath, "")
		if err != nil {
			return Target{}, err
		}
		cfg.QPS, cfg.DisableCompression = -1, disable
		if cs[i], err = apiclient.New(cfg); err != nil {
			return Target{}, err
		}
	}
	nodes := make([]string, cl.Nodes)
	for i := range nodes {
		nodes[i] = fleet.NodeName(i)
	}
	return NewTarget(cs[0], cs[1], fleet.PodsRef, nodes), nil
}

// Close closes the clients' idle connections.
func (t Target) Close() {
	t.Plain.CloseIdleConnections()
	t.Gzip.CloseIdleConnections()
}

// metaPod is a type that reads nothing beyond metadata: what a caller
// with such a type gets from the informer is PartialObjectMetadata.
type metaPod struct {
	meta.TypeMeta
	meta.SlimMeta `json:"metadata"`
}

// Do sends s's requests to t and decodes every object, as the informer
// would: it returns how many objects and requests it took.
func Do(ctx context.Context, t Target, s Shape) (objects, requests int, err error) {
	selectors := []string{""}
	if s.PerNode {
		selectors = selectors[:0]
		for _, n := range t.Nodes {
			selectors = append(selectors, "spec.nodeName="+n)
		}
	}
	c := t.Plain
	if s.Gzip {
		c = t.Gzip
	}
	for _, sel := range selectors {
		var n int
		if s.Metadata {
			n, err = do[metaPod](ctx, c, t, s, sel)
		} else {
			n, err = do[workload.SlimPod](ctx, c, t, s, sel)
		}
		if err != nil {
			return objects, requests, fmt.Errorf("shapes: %s %s: %w", s, sel, err)
		}
		objects += n
		requests++
	}
	return objects, requests, nil
}

func do[T any, P meta.PtrObject[T]](ctx context.Context, c *apiclient.Client, t Target, s Shape, field string) (int, error) {
	ref := t.Ref
	dec := watchstream.Options{Unmarshal: meta.SkipManagedFields()}
	if !s.JSON {
		// As the informer's wire does: protobuf straight into the type,
		// managedFields skipped.
		dec.Protobuf = t.proto
	}
	n := 0
	count := func(P) error { n++; return nil }
	switch s.Verb {
	case ListAtZero:
		_, err := apiclient.List[T, P](ctx, c, ref, apiclient.ListOptions{FieldSelector: field, ResourceVersion: "0",
			Limit: PageSize, Metadata: s.Metadata, Decode: dec, NoRetry: true}, count)
		return n, err
	case ListConsistent:
		_, err := apiclient.ListAll[T, P](ctx, c, ref, apiclient.ListOptions{FieldSelector: field, Limit: PageSize,
			Metadata: s.Metadata, Decode: dec, NoRetry: true}, nil, count)
		return n, err
	}
	w, err := apiclient.Watch[T, P](ctx, c, ref, apiclient.WatchOptions{FieldSelector: field, SendInitialEvents: true,
		ResourceVersionMatch: meta.MatchNotOlderThan, AllowWatchBookmarks: true, TimeoutSeconds: 300,
		Metadata: s.Metadata, Decode: dec})
	if err != nil {
		return 0, err
	}
	defer w.Stop()
	for {
		ev, err := w.Next()
		if err != nil {
			return n, err
		}
		switch {
		case ev.InitialEventsEnd:
			return n, nil
		case ev.Type == meta.Added:
			n++
		case ev.Type != meta.Bookmark:
			return n, errors.New("an event other than ADDED before the initial-events-end bookmark: " + string(ev.Type))
		}
	}
}
