package informer

import (
	"github.com/zerokube/zerokube/informer/observe"
	"github.com/zerokube/zerokube/meta"
)

// The trace's account of each request (observe.Request, on the relist and
// watch-opened events): the reflector says what it decides (the verb, the
// resourceVersion, the page size) and why; the resource's ListerWatcher
// says the rest (describe: the wire, gzip, metadata, the selectors), and
// the shard filter its selector (shardLW.describing, shard.go). What
// each shape costs kube-apiserver is docs/agents.md's "The cheapest
// request"; the reasons here name the option or the rule that chose it.

// listShape is the shape of listing s's first page, nil when nobody traces
// (building it costs a few allocations per relist).
func (r *reflector[P]) listShape(s listing[P]) *observe.Request {
	if !r.cfg.obs.tracing() {
		return nil
	}
	req := &observe.Request{Verb: observe.VerbList, ResourceVersion: s.req.ResourceVersion,
		ResourceVersionMatch: s.req.ResourceVersionMatch, Limit: s.req.Limit}
	switch rv := s.req.ResourceVersion; {
	case rv == "0":
		req.Why = append(req.Why, "rv=0: any state will do, so kube-apiserver answers from its watch cache, in one reply (it ignores the limit there): the cheapest LIST")
	case rv == "" && s.cause == observe.CauseInitial:
		req.Why = append(req.Why, "consistent (rv \"\"): Options.Sync.ConsistentFirstList")
	case rv == "":
		req.Why = append(req.Why, "consistent (rv \"\"): "+consistentWhy(s.cause))
	case s.req.Limit == 0:
		req.Why = append(req.Why, "rv="+rv+", one reply: a relist from the last resourceVersion, which the watch cache answers whole")
	default:
		req.Why = append(req.Why, "rv="+rv+" in pages: the first list came back in pages, so the server has no watch cache to answer whole")
	}
	if s.req.Limit > 0 && s.req.ResourceVersion != "0" {
		req.Why = append(req.Why, "limit: Options.Sync.PageSize")
	}
	return r.describe(req)
}

// consistentWhy says why a relist reads at "" after cause.
func consistentWhy(cause observe.RelistCause) string {
	switch cause {
	case observe.CauseListGone:
		return "the resourceVersion asked for is gone from the server's history (410)"
	case observe.CauseTooLargeRV:
		return "the server is behind the resourceVersion asked for (504)"
	}
	return "after " + cause.String()
}

// streamShape is the shape of a streaming list from rv.
func (r *reflector[P]) streamShape(rv string, cause observe.RelistCause) *observe.Request {
	if !r.cfg.obs.tracing() {
		return nil
	}
	req := &observe.Request{Verb: observe.VerbStreamingList, ResourceVersion: rv, ResourceVersionMatch: meta.MatchNotOlderThan,
		Why: []string{"streaming list: Options.Sync.StreamingList (the objects come one by one, no page is held: for an agent whose memory, not the server's CPU, is the constraint)"}}
	if rv == "" {
		req.Why = append(req.Why, "consistent (rv \"\"): "+consistentWhy(cause))
	}
	return r.describe(req)
}

// watchShape is the shape of watch req; resumed: from a snapshot's
// resourceVersion.
func (r *reflector[P]) watchShape(req WatchRequest, resumed bool) *observe.Request {
	if !r.cfg.obs.tracing() {
		return nil
	}
	why := "from the list's resourceVersion: the events since the list"
	if resumed {
		why = "from the snapshot's resourceVersion (Options.Snapshot): the events since the snapshot, no LIST"
	}
	shape := &observe.Request{Verb: observe.VerbWatch, ResourceVersion: req.ResourceVersion, Why: []string{why}}
	if req.Mode == ResumeFrom {
		shape.ResourceVersionMatch = meta.MatchNotOlderThan
		shape.Why = append(shape.Why, "sendInitialEvents=false: a streaming-list informer says it wants no initial state")
	}
	return r.describe(shape)
}

// describe adds the resource's part of req (cfg.describe, set by New;
// a reflector over another ListerWatcher knows only whether it asked for
// metadata).
func (r *reflector[P]) describe(req *observe.Request) *observe.Request {
	req.Metadata = r.cfg.metadata
	if r.cfg.describe != nil {
		r.cfg.describe(req)
	}
	return req
}

// describe is the resource's part of a request's shape: what New's
// ListerWatcher adds to every request, and why.
func (lw resourceLW[T, P]) describe(req *observe.Request) {
	req.LabelSelector, req.FieldSelector = lw.label, lw.field
	req.Protobuf = lw.proto.decoder() != nil
	req.Gzip = lw.c.AsksGzip()
	switch {
	case req.Metadata:
		req.Why = append(req.Why, "metadata-only: the type reads only metadata (PartialObjectMetadata)")
	case lw.tr.FullObjects && metadataOnly[T]():
		req.Why = append(req.Why, "whole objects: Transport.FullObjects")
	default:
		req.Why = append(req.Why, "whole objects: the type reads more than metadata")
	}
	switch {
	case req.Protobuf:
		req.Why = append(req.Why, "protobuf: a built-in kind, which kube-apiserver serves in protobuf for about half of JSON's CPU")
	case lw.tr.JSON:
		req.Why = append(req.Why, "JSON: Transport.JSON")
	case lw.proto.dec != nil:
		req.Why = append(req.Why, "JSON: the server's protobuf held a kind kubeproto's table lacks")
	default:
		req.Why = append(req.Why, "JSON: not a built-in kind (kube-apiserver serves custom resources in JSON only)")
	}
	if req.Gzip {
		req.Why = append(req.Why, "gzip: apiclient.Config.DisableCompression is unset")
	} else {
		req.Why = append(req.Why, "no gzip: apiclient.Config.DisableCompression")
	}
	if req.FieldSelector != "" || req.LabelSelector != "" {
		req.Why = append(req.Why, "selectors: Options.FieldSelector and LabelSelector, filtered by the server")
	}
}
