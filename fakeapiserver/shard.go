package fakeapiserver

import (
	"errors"
	"net/url"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/zerokube/zerokube/fakeapiserver/internal/storage"
	"github.com/zerokube/zerokube/meta"
	"github.com/zerokube/zerokube/shard"
)

// Shard selectors (KEP-5866), as kube-apiserver v1.37 serves them with the
// ShardedListAndWatch gate on (Options.ShardedListAndWatch):
//
//  1. LIST, WATCH (streaming lists included) and DELETECOLLECTION keep only
//     the objects whose FNV-1a hash of the selector's field is in one of its
//     ranges (storage.Filter.Shard); everything else about the request is
//     unchanged.
//  2. A LIST reply says it is a shard: metadata.shardInfo.selector is the
//     selector in the server's canonical form (shard.Selector.String), and
//     remainingItemCount is left out, as with label selectors (the server's
//     predicate is no longer empty).
//  3. A selector the parser refuses is a 500 whose Status has no reason and
//     the message "invalid shard selector: …": the registry returns a plain
//     error, which the handler turns into an InternalError-shaped Status
//     (k8s.io/apiserver v0.37.2, registry/generic/registry/store.go
//     ListPredicate and Watch, endpoints/handlers/responsewriters
//     ErrorToAPIStatus); observed on kube-apiserver v1.37.2 with the gate,
//     message included (conformance TestShardSelectors).
//  4. With the gate off (the default, as on a real server) the parameter is
//     ignored entirely, even when malformed, and no shardInfo is sent.
//  5. An empty shardSelector is the same as none.

// shardFilter adds the request's shard selector, if any, to f.
func (s *Server) shardFilter(f *storage.Filter, q url.Values) error {
	text := q.Get("shardSelector")
	if !s.opts.ShardedListAndWatch || text == "" {
		return nil
	}
	sel, err := shard.Parse(text)
	if err != nil {
		return errShardSelector(err)
	}
	f.Shard = &sel
	return nil
}

// errShardSelector is the Status kube-apiserver answers for a selector its
// parser refuses (invariant 3).
func errShardSelector(err error) *meta.StatusError {
	msg := err.Error()
	var pe *shard.ParseError
	if errors.As(err, &pe) {
		msg = pe.Msg
	}
	return meta.NewStatusError(500, meta.ReasonUnknown, "invalid shard selector: "+msg)
}

// appendShardInfo appends the list metadata's shardInfo member, if any.
func appendShardInfo(b []byte, selector string) []byte {
	if selector == "" {
		return b
	}
	b = append(b, `,"shardInfo":{"selector":`...)
	b, _ = jsontext.AppendQuote(b, selector)
	return append(b, '}')
}
