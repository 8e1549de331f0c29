package fakeapiserver

import (
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/zerokube/zerokube/fakeapiserver/internal/storage"
	"github.com/zerokube/zerokube/meta"
)

// Fault names a kind of injected fault, the key of Stats.Faults.
type Fault string

// The faults a Server can inject. Each is logged and counted.
const (
	FaultDropWatches    Fault = "drop-watches"    // every open watch ends cleanly
	FaultFail           Fault = "fail"            // a request answered with an injected error
	FaultLatency        Fault = "latency"         // a request delayed
	FaultCompact        Fault = "compact"         // history compacted
	FaultCutWatch       Fault = "cut-watch"       // a watch cut mid-event
	FaultMalformedEvent Fault = "malformed-event" // a malformed frame injected
	FaultStopBookmarks  Fault = "stop-bookmarks"  // bookmarks switched off
	FaultStall          Fault = "stall"           // a watch stalled, connection kept
	FaultDropEvent      Fault = "drop-event"      // the next event of each open watch silently not sent
	FaultRestart        Fault = "restart"         // every connection dropped, state kept
	// The faults of fault_*.go: see the functions that inject them.
	FaultRestore           Fault = "restore"            // state and RV rolled back (Restore)
	FaultCompactMidList    Fault = "compact-mid-list"   // history compacted past a continue token (CompactBetweenPages)
	FaultCutStreamingList  Fault = "cut-streaming-list" // a streaming list ended before its end bookmark (CutStreamingLists)
	FaultUndecodableObject Fault = "undecodable-object" // an object stored unchecked (PutUnchecked)
)

// Forever, as a count of requests to fail (or lists to cut, or pages to
// expire), means every matching one until ClearFaults.
const Forever = -1

// Failure describes requests to fail. Count requests (Forever: all until
// ClearFaults) matching Verb, PathContains and QueryContains (empty matches
// all) are answered with Code: 500, 503, 429 (with Retry-After), 410
// (Expired, "too old resource version"), 504 (ResourceVersionTooLarge), or
// any other code.
type Failure struct {
	Count        int
	Code         int
	Verb         string // get list watch create update patch delete deletecollection
	PathContains string
	// QueryContains matches the raw query, e.g. "sendInitialEvents=true"
	// for streaming lists only, or "continue=" for the pages after the first.
	QueryContains string
	RetryAfter    time.Duration // for 429 and 504; 0 means 1 s
	// Match, when set, must also accept the request: for what the fields
	// above cannot say ("a watch without sendInitialEvents").
	Match func(r *http.Request) bool
	// Reason, when set, replaces the reason the code implies: a 410 with
	// reason "Gone" as older servers sent it, or one no client knows.
	Reason meta.StatusReason
	// AsEvent answers a watch with 200 and one ERROR event carrying the
	// Status, then the end of the stream: how kube-apiserver reports errors
	// it finds once a watch is accepted (a 410 for a too old resourceVersion,
	// a 504 for a streaming list at a resourceVersion it has not reached).
	// Requests other than watches get the plain HTTP answer.
	AsEvent bool
}

type faultState struct {
	mu          sync.Mutex // guards the fields below
	failures    []*Failure
	latency     time.Duration
	cutStreams  int         // streaming lists still to cut (CutStreamingLists)
	expirePages int         // continue requests still to expire (CompactBetweenPages)
	slow        []*SlowBody // replies to slow down (SlowBodies, fault_body.go)
	count       map[Fault]int64
	noBookmarks atomic.Bool
}

func (f *faultState) counts() map[Fault]int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make(map[Fault]int64, len(f.count))
	for k, v := range f.count {
		out[k] = v
	}
	return out
}

// record counts and logs one fault.
func (s *Server) record(kind Fault, args ...any) {
	s.faults.mu.Lock()
	if s.faults.count == nil {
		s.faults.count = map[Fault]int64{}
	}
	s.faults.count[kind]++
	s.faults.mu.Unlock()
	s.log.Info("fakeapiserver: fault", append([]any{"fault", string(kind)}, args...)...)
}

// FailNext makes the next f.Count matching requests fail with f.Code
// (every one, with Count: Forever, until ClearFaults).
func (s *Server) FailNext(f Failure) {
	s.faults.mu.Lock()
	defer s.faults.mu.Unlock()
	s.faults.failures = append(s.faults.failures, &f)
}

// takeFailure returns the injected failure for a request, if one is due.
func (s *Server) takeFailure(verb string, r *http.Request) *Failure {
	s.faults.mu.Lock()
	var hit *Failure
	for i, f := range s.faults.failures {
		if (f.Verb == "" || f.Verb == verb) && strings.Contains(r.URL.Path, f.PathContains) &&
			strings.Contains(r.URL.RawQuery, f.QueryContains) && (f.Match == nil || f.Match(r)) {
			hit = f
			if f.Count == Forever {
				break
			}
			if f.Count--; f.Count <= 0 {
				s.faults.failures = append(s.faults.failures[:i], s.faults.failures[i+1:]...)
			}
			break
		}
	}
	s.faults.mu.Unlock()
	if hit == nil {
		return nil
	}
	s.record(FaultFail, "code", hit.Code, "verb", verb, "path", r.URL.Path, "event", hit.AsEvent && verb == "watch", "reason", string(hit.Reason))
	return hit
}

// injectFailure answers the request with an injected failure, if one is
// due, and reports whether it did.
func (s *Server) injectFailure(w http.ResponseWriter, r *http.Request, req request) bool {
	verb := req.verb
	f := s.takeFailure(verb, r)
	if f == nil {
		return false
	}
	if f.AsEvent && verb == "watch" {
		s.serveWatchError(w, r, newProtoFrames(req), failureStatus(f))
		return true
	}
	s.writeError(w, r, failureStatus(f))
	return true
}

func failureStatus(f *Failure) *meta.StatusError {
	e := codeStatus(f)
	if f.Reason != "" {
		e.Status.Reason = f.Reason
	}
	return e
}

func codeStatus(f *Failure) *meta.StatusError {
	retry := max(f.RetryAfter, time.Second)
	switch f.Code {
	case 410:
		return storage.Expired("too old resource version: injected fault")
	case 500:
		return meta.NewStatusError(500, meta.ReasonInternalError, "Internal error occurred: injected fault")
	case 503:
		return meta.NewStatusError(503, meta.ReasonServiceUnavailable, "the server is currently unable to handle the request (injected fault)")
	case 429:
		e := meta.NewStatusError(429, meta.ReasonTooManyRequests, "Too many requests, please try again later.")
		e.Status.Details = &meta.StatusDetails{RetryAfterSeconds: int32(retry / time.Second)}
		return e
	case 504:
		e := storage.TooLarge(0)
		e.Status.Details.RetryAfterSeconds = int32(retry / time.Second)
		return e
	}
	return meta.NewStatusError(int32(f.Code), meta.ReasonUnknown, fmt.Sprintf("injected fault: HTTP %d", f.Code))
}

// ClearFaults ends every fault still armed: failures not yet consumed
// (Forever ones included), latency, lists armed to be cut or expired;
// bookmarks are switched back on. The server is healthy again, for a test's
// "after the faults stop" phase.
func (s *Server) ClearFaults() {
	s.faults.mu.Lock()
	s.faults.failures = nil
	s.faults.latency = 0
	s.faults.cutStreams = 0
	s.faults.expirePages = 0
	s.faults.slow = nil
	s.faults.mu.Unlock()
	s.faults.noBookmarks.Store(false)
}

// takeArmed consumes one of the requests counted by *n (Forever: all).
func (s *Server) takeArmed(n *int) bool {
	s.faults.mu.Lock()
	defer s.faults.mu.Unlock()
	switch {
	case *n == Forever:
		return true
	case *n > 0:
		*n--
		return true
	}
	return false
}

// SetLatency delays every later API request by d (0 turns it off).
func (s *Server) SetLatency(d time.Duration) {
	s.faults.mu.Lock()
	defer s.faults.mu.Unlock()
	s.faults.latency = d
}

// applyLatency waits out the injected latency; false when the client left.
func (s *Server) applyLatency(r *http.Request) bool {
	s.faults.mu.Lock()
	d := s.faults.latency
	s.faults.mu.Unlock()
	if d <= 0 {
		return true
	}
	s.record(FaultLatency, "delay", d, "path", r.URL.Path)
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-r.Context().Done():
		return false
	}
}

// DropWatches ends every open watch cleanly (after the events already
// queued), as an API server does on shutdown. It returns how many ended.
func (s *Server) DropWatches() int {
	n := s.store.EndWatches("fault: drop watches")
	s.record(FaultDropWatches, "watches", n)
	return n
}

// Compact drops history up to rv (0 means everything up to now): watches
// and continue tokens older than that get 410 Expired.
func (s *Server) Compact(rv int64) { s.compact(rv) }

// compact is Compact; it returns how many events of the history it
// dropped, the answer of /fake/compact.
func (s *Server) compact(rv int64) int {
	rv, n := s.store.Compact(rv)
	s.record(FaultCompact, "rv", rv, "events", n)
	return n
}

// CutWatches makes every open watch write only half of its next frame and
// then drop its connection. It returns how many watches were armed.
func (s *Server) CutWatches() int {
	n := s.store.EachWatcher((*storage.Watcher).ArmCut)
	s.record(FaultCutWatch, "watches", n)
	return n
}

// MalformedFrame is the frame InjectMalformedEvent sends: a line that is
// not valid JSON.
const MalformedFrame = `{"type":"MODIFIED","object":{"kind":}}` + "\n"

// InjectMalformedEvent queues MalformedFrame on every open watch.
func (s *Server) InjectMalformedEvent() int { return s.InjectFrame([]byte(MalformedFrame)) }

// InjectFrame queues raw bytes as the next frame of every open watch.
func (s *Server) InjectFrame(frame []byte) int {
	n := s.store.InjectFrame(frame)
	s.record(FaultMalformedEvent, "watches", n)
	return n
}

// SetBookmarks turns periodic bookmarks off (false) or back on.
func (s *Server) SetBookmarks(enabled bool) {
	s.faults.noBookmarks.Store(!enabled)
	if !enabled {
		s.record(FaultStopBookmarks)
	}
}

// DropNextWatchEvent makes every open watch silently skip the next event
// it would send (ADDED, MODIFIED or DELETED; bookmarks are not events),
// and go on with the ones after it: a watch event lost between the
// server's history and the client, which no error, bookmark or
// resourceVersion reveals. The client's cache stays wrong until it
// relists. It returns how many watches were armed.
func (s *Server) DropNextWatchEvent() int {
	n := s.store.EachWatcher((*storage.Watcher).ArmDrop)
	s.record(FaultDropEvent, "watches", n)
	return n
}

// StallWatches makes every open watch go silent without closing its
// connection, a half-open stream; new watches are not affected.
func (s *Server) StallWatches() int {
	n := s.store.EachWatcher((*storage.Watcher).Stall)
	s.record(FaultStall, "watches", n)
	return n
}

// Restart drops every connection, as a restarting API server does; the
// objects and the history are kept.
func (s *Server) Restart() { s.restart(nil) }

// restart is Restart, sparing the connection keep (that of a /fake/restart
// request, closed once answered). It returns how many connections it
// dropped, or, on a server that tracks none (mounted in another
// http.Server), how many watches it ended: the answer of /fake/restart.
func (s *Server) restart(keep net.Conn) int {
	n := s.conns.closeAllBut(keep)
	w := s.store.EndWatches("fault: restart")
	s.record(FaultRestart, "connections", n)
	if s.httpSrv == nil {
		return w
	}
	return n
}
