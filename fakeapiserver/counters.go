package fakeapiserver

import (
	"context"
	"sync/atomic"
)

// counters are the front's statistics; atomics, read by Stats. The store
// counts writes, watches, bookmarks and slow watchers itself.
type counters struct {
	requests, events, unauthorized atomic.Int64
}

// Stats is a snapshot of what the server has done.
type Stats struct {
	Requests       int64 // every HTTP request, admin ones included
	Connections    int64 // connections accepted (HTTP/2 carries many requests on one)
	OpenConns      int   // connections open now
	Writes         int64 // committed events (creates, updates, deletes)
	Watches        int64 // watches started
	ActiveWatchers int   // watches open now
	Events         int64 // frames written to watchers, bookmarks included
	Bookmarks      int64 // periodic bookmarks queued
	SlowWatchers   int64 // watchers ended for falling behind
	Unauthorized   int64 // 401 answers
	// Faults counts injected faults by kind (see the Fault… constants).
	Faults map[Fault]int64
}

// Stats returns the current statistics.
func (s *Server) Stats() Stats {
	c := s.store.Counters()
	s.conns.mu.Lock()
	open := len(s.conns.conns)
	s.conns.mu.Unlock()
	return Stats{
		Requests: s.stats.requests.Load(), Connections: s.conns.accepted.Load(), OpenConns: open,
		Writes: c.Writes.Load(), Watches: c.Watches.Load(), ActiveWatchers: s.store.Watchers(),
		Events: s.stats.events.Load(), Bookmarks: c.Bookmarks.Load(),
		SlowWatchers: c.SlowWatchers.Load(), Unauthorized: s.stats.unauthorized.Load(),
		Faults: s.faults.counts(),
	}
}

// AwaitWatchers waits until at least n watches are open on the server.
func (s *Server) AwaitWatchers(ctx context.Context, n int) error {
	return s.store.AwaitWatchers(ctx, func(open int) bool { return open >= n })
}

// AwaitWatchersBelow waits until fewer than n watches are open.
func (s *Server) AwaitWatchersBelow(ctx context.Context, n int) error {
	return s.store.AwaitWatchers(ctx, func(open int) bool { return open < n })
}
