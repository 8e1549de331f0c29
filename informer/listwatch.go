package informer

import (
	"context"
	"time"

	"github.com/zerokube/zerokube/meta"
	"github.com/zerokube/zerokube/watchstream"
)

// ListerWatcher is the reflector's view of the API server: one LIST page at a
// time and one WATCH at a time, for one resource with its selectors already
// applied. [NewForResource] builds one on an apiclient.Client; tests script
// their own.
//
// Errors from the server must carry a *meta.StatusError (wrapped is fine):
// the reflector's policy (relist on 410, wait on 429, report 401/403/404)
// reads it with the meta.Is… helpers.
type ListerWatcher[P any] interface {
	// List fetches one page and calls each for every item, in order, as it
	// is decoded. It returns the page's ListMeta (resourceVersion, continue).
	List(ctx context.Context, opts ListOptions, each func(P) error) (meta.ListMeta, error)
	// Watch opens a watch. The stream ends when ctx is cancelled, when
	// Stop is called, or when the server closes it.
	Watch(ctx context.Context, opts WatchOptions) (Watch[P], error)
}

// ListOptions are the parameters of one LIST page that the reflector decides;
// selectors belong to the ListerWatcher.
type ListOptions struct {
	ResourceVersion      string
	ResourceVersionMatch string
	Limit                int64
	Continue             string
	// SkipUndecodable, when set (Options.SkipUndecodable), asks the
	// ListerWatcher to skip an item that is valid JSON but does not fit P,
	// reporting it here, instead of failing the page.
	SkipUndecodable func(UndecodableObject)
	// ShardSelector is set by Options.Shard (see shard.go): a ListerWatcher
	// that can send it to the server does; others may ignore it.
	ShardSelector string
}

// WatchOptions are the parameters of one WATCH that the reflector decides.
type WatchOptions struct {
	ResourceVersion      string
	ResourceVersionMatch string
	AllowWatchBookmarks  bool
	SendInitialEvents    bool
	// NoInitialEvents says sendInitialEvents=false explicitly: a resumed
	// streaming-list informer watching from a snapshot's resourceVersion.
	NoInitialEvents bool
	TimeoutSeconds  int64
	// OpenTimeout bounds the wait for the server to answer the WATCH
	// request (its headers). The reflector sets it to its idle timeout: its
	// watchdog only starts once a watch is open, so a request a stuck proxy
	// accepts and never answers would otherwise hold it. 0: the
	// ListerWatcher's own default.
	OpenTimeout time.Duration
	// ShardSelector: as in ListOptions.
	ShardSelector string
}

// Watch is an open watch stream.
type Watch[P any] interface {
	// Next blocks for the next event. io.EOF (possibly wrapped) means the
	// server closed the stream cleanly; an ERROR event arrives as an error
	// carrying its *meta.StatusError.
	Next() (Event[P], error)
	// Stop ends the stream and makes a blocked Next return. Idempotent and
	// safe from any goroutine.
	Stop()
}

// Event is one decoded watch event: watchstream's type, so an apiclient
// watch stream is a Watch without any copying.
type Event[P any] = watchstream.Event[P]
