package informer

import (
	"context"

	"github.com/zerokube/zerokube/watchstream"
)

// ListerWatcher is the reflector's view of the API server: one LIST page at a
// time and one WATCH at a time, for one resource. [New] builds one on an
// apiclient.Client (the article's ListWatch); Options.WrapListerWatcher
// sees it, to count or trace requests, or to replace it in a test.
//
// The reflector asks for what it decides (a ListRequest, a WatchRequest:
// resourceVersion, limit, continue, timeouts, the watch's mode; the shard
// stage adds its selector); the one New builds adds what belongs to the
// resource (selectors, wire, decoding, the size cap, the skip policy and
// the reply's progress watchdog, Options.Sync.StallTimeout and friends), set
// once when it was built.
//
// Errors from the server must carry a *meta.StatusError (wrapped is fine):
// the reflector's policy (relist on 410, wait on 429, report 401/403/404)
// reads it with the meta.Is… helpers.
type ListerWatcher[P any] interface {
	// List fetches one page and calls each for every item, in order, as it
	// is decoded. It returns the page's ListMeta (resourceVersion,
	// continue) and the objects it stepped over.
	List(ctx context.Context, req ListRequest, each func(P) error) (ListPage, error)
	// Watch opens a watch. The stream ends when ctx is cancelled, when
	// Stop is called, or when the server closes it.
	Watch(ctx context.Context, req WatchRequest) (Watch[P], error)
}

// Watch is an open watch stream.
type Watch[P any] interface {
	// Next blocks for the next event. io.EOF (possibly wrapped) means the
	// server closed the stream cleanly; an ERROR event arrives as an error
	// carrying its *meta.StatusError; a stream that delivered nothing for
	// its stall bound ends with a *watchstream.DecodeError of Problem
	// Stalled.
	Next() (watchstream.Event[P], error)
	// Stop ends the stream and makes a blocked Next return. Idempotent and
	// safe from any goroutine.
	Stop()
}
