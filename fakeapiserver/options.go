package fakeapiserver

import (
	"log/slog"
	"net/http"
	"time"
)

// Options configures a Server. The zero value means every default.
type Options struct {
	// Addr is the listen address; "" means "127.0.0.1:0" (a free port).
	Addr string
	// TLS serves https with a certificate signed by a CA generated at start;
	// Server.CAData returns the CA for clients to trust.
	TLS bool
	// Tokens turns on bearer-token authentication: a request without one
	// of these tokens gets 401, one whose token does not cover the resource
	// gets 403. Empty means no authentication.
	Tokens []Token
	// HistoryEvents and HistoryAge bound the event log that watches replay
	// and paginated lists read old snapshots from; a watch or continue token
	// older than the log gets 410 Expired. Defaults: 10,000 events, 5 min.
	HistoryEvents int
	HistoryAge    time.Duration
	// WatchBuffer is how many events a watcher may fall behind before the
	// server ends its watch (the client must re-watch). Default 256.
	WatchBuffer int
	// BookmarkInterval is the period of BOOKMARK events on watches that
	// allow them. Default 1 min, as kube-apiserver; tests use less.
	BookmarkInterval time.Duration
	// MinRequestTimeout: a watch without timeoutSeconds lasts a random
	// time between 1 and 2 times this. Default 30 min.
	MinRequestTimeout time.Duration
	// TooLargeWait is how long a read at a future resourceVersion waits for
	// the server to reach it before a 504 ResourceVersionTooLarge. Default 3 s.
	TooLargeWait time.Duration
	// DisableWatchListCompression stops gzipping watch-list streams
	// (sendInitialEvents=true), which by default are compressed for
	// clients that send Accept-Encoding: gzip, one gzip member per flush,
	// as kube-apiserver v1.37 does (its WatchListCompression gate is on by
	// default). Lists and gets over 128 KiB are gzipped regardless, as
	// there, and other watches never are.
	DisableWatchListCompression bool
	// ShardedListAndWatch serves the shardSelector parameter of LIST and
	// WATCH (KEP-5866), as kube-apiserver does with that feature gate on;
	// off by default, as on a real server, the parameter is ignored. See
	// shard.go.
	ShardedListAndWatch bool
	// Hooks, each documented by what happens when it is non-nil; nil (the
	// zero Options) means the server behaves as kube-apiserver does. They
	// run on the request's goroutine and may block it: a test holds a
	// request there to make a race happen in the order it wants.

	// Intercept, if non-nil, sees every API request (not discovery or
	// admin) after authentication; an error it returns is the answer (a
	// *meta.StatusError keeps its code, anything else is a 500).
	Intercept func(r *http.Request, verb string) error
	// Stored, if non-nil, is called after a create, update, patch or
	// delete (not a dry run) is stored and before its answer is written,
	// with the object as stored (for a delete, its last state). A test
	// that cancels the client's request here makes a write that took
	// effect but was never answered: what a client cancelled mid-request
	// (leader election's release after a cancelled renewal) must expect.
	Stored func(r *http.Request, verb string, object []byte)
	// SimulateStatus runs a status loop once the server is started
	// (statusloop.go): pods become Running with every container ready,
	// Deployments and ReplicaSets get the status their controllers write
	// once every replica is available, so kubectl rollout status and
	// kubectl wait --for=condition=Ready finish. It creates no pods. Off by
	// default: the fake is a pure API server, where only clients write
	// status.
	SimulateStatus bool
	// Now is the clock for timestamps and the history's age bound; nil
	// means time.Now. Tests move it to age the history without sleeping.
	Now func() time.Time
	// Logger receives request errors and every injected fault. Nil means
	// none: the server never logs to slog.Default.
	Logger *slog.Logger
}

// Token is one accepted bearer token.
type Token struct {
	Value string
	// Resources lists the resources (plural names, "pods") the token may
	// use; empty means all of them. Discovery is open to every token.
	Resources []string
	// Verbs lists the verbs (get list watch create update patch delete
	// deletecollection) the token may use; empty means all of them.
	Verbs []string
}

func (o Options) withDefaults() Options {
	if o.Addr == "" {
		o.Addr = "127.0.0.1:0"
	}
	if o.HistoryEvents <= 0 {
		o.HistoryEvents = 10_000
	}
	if o.HistoryAge <= 0 {
		o.HistoryAge = 5 * time.Minute
	}
	if o.WatchBuffer <= 0 {
		o.WatchBuffer = 256
	}
	if o.BookmarkInterval <= 0 {
		o.BookmarkInterval = time.Minute
	}
	if o.MinRequestTimeout <= 0 {
		o.MinRequestTimeout = 30 * time.Minute
	}
	if o.TooLargeWait <= 0 {
		o.TooLargeWait = 3 * time.Second
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return o
}
