package fakeapiserver

import (
	"context"
	"sync/atomic"
)

// counters are the server's statistics; atomics, read by Stats.
type counters struct {
	requests, writes, watches, events, bookmarks atomic.Int64
	slowWatchers, unauthorized                   atomic.Int64
}

// Stats is a snapshot of what the server has done.
type Stats struct {
	Requests       int64 // every HTTP request, admin ones included
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
	s.mu.Lock()
	active := s.nWatchers
	s.mu.Unlock()
	return Stats{
		Requests: s.stats.requests.Load(), Writes: s.stats.writes.Load(),
		Watches: s.stats.watches.Load(), ActiveWatchers: active,
		Events: s.stats.events.Load(), Bookmarks: s.stats.bookmarks.Load(),
		SlowWatchers: s.stats.slowWatchers.Load(), Unauthorized: s.stats.unauthorized.Load(),
		Faults: s.faults.counts(),
	}
}

// AwaitWatchers waits until at least n watches are open on the server.
func (s *Server) AwaitWatchers(ctx context.Context, n int) error {
	return s.await(ctx, func() bool { return s.nWatchers >= n })
}

// AwaitWatchersBelow waits until fewer than n watches are open.
func (s *Server) AwaitWatchersBelow(ctx context.Context, n int) error {
	return s.await(ctx, func() bool { return s.nWatchers < n })
}

// await waits for cond, evaluated under s.mu each time watchers change.
func (s *Server) await(ctx context.Context, cond func() bool) error {
	for {
		s.mu.Lock()
		ok, ch := cond(), s.changed
		s.mu.Unlock()
		if ok {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return context.Cause(ctx)
		}
	}
}
