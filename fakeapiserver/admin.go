package fakeapiserver

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/zerokube/zerokube/meta"
)

// serveAdmin serves the fault-injection endpoints under /fake/. They need
// no token. Every one but GET /fake/stats is a POST:
//
//	/fake/drop-watches  /fake/cut-watch  /fake/malformed-event  /fake/stall  /fake/restart
//	/fake/fail?code=503&count=2&verb=list&path=/pods&retryAfter=2s
//	/fake/fail?code=410&count=-1&verb=watch&asEvent=true&query=sendInitialEvents&reason=Gone
//	/fake/latency?d=200ms            /fake/compact?rv=123
//	/fake/bookmarks?enabled=false    /fake/clear-faults
//	/fake/restore?rv=123             /fake/compact-between-pages?count=-1
//	/fake/cut-streaming-list?count=1
//	/fake/put-unchecked?version=v1&resource=configmaps  (the object is the body)
func (s *Server) serveAdmin(w http.ResponseWriter, r *http.Request) {
	name := strings.TrimPrefix(r.URL.Path, "/fake/")
	if name == "stats" && r.Method == http.MethodGet {
		writeValue(w, http.StatusOK, s.Stats())
		return
	}
	if r.Method != http.MethodPost {
		s.writeError(w, r, errMethodNotAllowed(r.Method))
		return
	}
	q := r.URL.Query()
	n := 0
	switch name {
	case "drop-watches":
		n = s.DropWatches()
	case "cut-watch":
		n = s.CutWatches()
	case "malformed-event":
		n = s.InjectMalformedEvent()
	case "stall":
		n = s.StallWatches()
	case "restart":
		// Answer first: the restart drops this connection too.
		writeValue(w, http.StatusOK, map[string]int{"affected": 0})
		s.wg.Add(1)
		go func() { defer s.wg.Done(); s.Restart() }()
		return
	case "fail":
		f, err := parseFailure(q)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		s.FailNext(f)
	case "latency":
		d, err := time.ParseDuration(q.Get("d"))
		if err != nil {
			s.writeError(w, r, errBadRequest("latency: %v", err))
			return
		}
		s.SetLatency(d)
	case "compact":
		rv, _ := strconv.ParseInt(q.Get("rv"), 10, 64)
		s.Compact(rv)
	case "bookmarks":
		s.SetBookmarks(isTrue(q.Get("enabled")))
	case "clear-faults":
		s.ClearFaults()
	case "restore":
		rv, _ := strconv.ParseInt(q.Get("rv"), 10, 64)
		s.wg.Add(1) // as restart: the restore drops this connection too
		go func() { defer s.wg.Done(); s.Restore(rv) }()
	case "compact-between-pages", "cut-streaming-list":
		c, err := strconv.Atoi(q.Get("count"))
		if err != nil {
			s.writeError(w, r, errBadRequest("%s: count: %v", name, err))
			return
		}
		if name == "cut-streaming-list" {
			s.CutStreamingLists(c)
		} else {
			s.CompactBetweenPages(c)
		}
	case "put-unchecked":
		if !s.adminPutUnchecked(w, r) {
			return
		}
	default:
		s.writeError(w, r, errNoResource())
		return
	}
	writeValue(w, http.StatusOK, map[string]int{"affected": n})
}

func parseFailure(q map[string][]string) (Failure, error) {
	get := func(k string) string {
		if v := q[k]; len(v) > 0 {
			return v[0]
		}
		return ""
	}
	f := Failure{Count: 1, Verb: get("verb"), PathContains: get("path"), QueryContains: get("query"),
		Reason: meta.StatusReason(get("reason")), AsEvent: isTrue(get("asEvent"))}
	var err error
	if f.Code, err = strconv.Atoi(get("code")); err != nil {
		return f, errBadRequest("fail: code: %v", err)
	}
	if c := get("count"); c != "" {
		if f.Count, err = strconv.Atoi(c); err != nil {
			return f, errBadRequest("fail: count: %v", err)
		}
	}
	if ra := get("retryAfter"); ra != "" {
		if f.RetryAfter, err = time.ParseDuration(ra); err != nil {
			return f, errBadRequest("fail: retryAfter: %v", err)
		}
	}
	return f, nil
}

// adminPutUnchecked serves /fake/put-unchecked; false when it answered an
// error.
func (s *Server) adminPutUnchecked(w http.ResponseWriter, r *http.Request) bool {
	q := r.URL.Query()
	body, err := readBody(r)
	if err == nil {
		gvr := meta.GVR{Group: q.Get("group"), Version: q.Get("version"), Resource: q.Get("resource")}
		_, err = s.PutUnchecked(gvr, body)
	}
	if err != nil {
		s.writeError(w, r, errBadRequest("put-unchecked: %v", err))
		return false
	}
	return true
}
