package fakeapiserver

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// serveAdmin serves the fault-injection endpoints under /fake/. They need
// no token. Every one but GET /fake/stats is a POST:
//
//	/fake/drop-watches  /fake/cut-watch  /fake/malformed-event  /fake/stall  /fake/restart
//	/fake/fail?code=503&count=2&verb=list&path=/pods&retryAfter=2s
//	/fake/latency?d=200ms            /fake/compact?rv=123
//	/fake/bookmarks?enabled=false
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
	f := Failure{Count: 1, Verb: get("verb"), PathContains: get("path")}
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
