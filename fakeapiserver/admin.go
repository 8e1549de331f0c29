package fakeapiserver

import (
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/zerokube/zerokube/meta"
)

// adminFault is one row of the fault table the /fake/ endpoints serve: a
// fault is data (its endpoint, the query it reads, the call), so adding
// one is a row here beside the method that injects it, not a case in a
// switch and a parser of its own.
type adminFault struct {
	name  string // POST /fake/<name>
	query string // the query it reads, for the package doc and the 404
	// answerFirst: the fault drops every connection, this one included,
	// so the answer is written before it runs (on the server's WaitGroup).
	answerFirst bool
	// closeAfter: the fault drops every connection but this one, which
	// closes once answered, so that the answer can say what it did.
	closeAfter bool
	do         func(s *Server, r *http.Request, q url.Values) (affected int, err error)
}

// count reads the count parameter of an armed fault.
func count(name string, q url.Values) (int, error) {
	c, err := strconv.Atoi(q.Get("count"))
	if err != nil {
		return 0, errBadRequest("%s: count: %v", name, err)
	}
	return c, nil
}

var adminFaults = []adminFault{
	{name: "drop-watches", do: func(s *Server, _ *http.Request, _ url.Values) (int, error) { return s.DropWatches(), nil }},
	{name: "cut-watch", do: func(s *Server, _ *http.Request, _ url.Values) (int, error) { return s.CutWatches(), nil }},
	{name: "malformed-event", do: func(s *Server, _ *http.Request, _ url.Values) (int, error) { return s.InjectMalformedEvent(), nil }},
	{name: "stall", do: func(s *Server, _ *http.Request, _ url.Values) (int, error) { return s.StallWatches(), nil }},
	{name: "drop-event", do: func(s *Server, _ *http.Request, _ url.Values) (int, error) { return s.DropNextWatchEvent(), nil }},
	{name: "restart", closeAfter: true, do: func(s *Server, r *http.Request, _ url.Values) (int, error) { return s.restart(connOf(r)), nil }},
	{name: "restore", query: "rv=123", answerFirst: true, do: func(s *Server, _ *http.Request, q url.Values) (int, error) {
		rv, _ := strconv.ParseInt(q.Get("rv"), 10, 64)
		s.Restore(rv)
		return 0, nil
	}},
	{name: "fail", query: "code=503&count=2&verb=list&path=/pods&query=sendInitialEvents&retryAfter=2s&asEvent=true&reason=Gone",
		do: func(s *Server, _ *http.Request, q url.Values) (int, error) {
			f, err := parseFailure(q)
			if err == nil {
				s.FailNext(f)
			}
			return 0, err
		}},
	{name: "latency", query: "d=200ms", do: func(s *Server, _ *http.Request, q url.Values) (int, error) {
		d, err := time.ParseDuration(q.Get("d"))
		if err != nil {
			return 0, errBadRequest("latency: %v", err)
		}
		s.SetLatency(d)
		return 0, nil
	}},
	{name: "compact", query: "rv=123", do: func(s *Server, _ *http.Request, q url.Values) (int, error) {
		rv, _ := strconv.ParseInt(q.Get("rv"), 10, 64)
		return s.compact(rv), nil
	}},
	{name: "bookmarks", query: "enabled=false", do: func(s *Server, _ *http.Request, q url.Values) (int, error) {
		s.SetBookmarks(isTrue(q.Get("enabled")))
		return 0, nil
	}},
	{name: "clear-faults", do: func(s *Server, _ *http.Request, _ url.Values) (int, error) { s.ClearFaults(); return 0, nil }},
	{name: "compact-between-pages", query: "count=-1", do: func(s *Server, _ *http.Request, q url.Values) (int, error) {
		c, err := count("compact-between-pages", q)
		if err == nil {
			s.CompactBetweenPages(c)
		}
		return 0, err
	}},
	{name: "cut-streaming-list", query: "count=1", do: func(s *Server, _ *http.Request, q url.Values) (int, error) {
		c, err := count("cut-streaming-list", q)
		if err == nil {
			s.CutStreamingLists(c)
		}
		return 0, err
	}},
	{name: "put-unchecked", query: "version=v1&resource=configmaps (the object is the body)",
		do: func(s *Server, r *http.Request, q url.Values) (int, error) {
			body, err := readBody(r)
			if err == nil {
				gvr := meta.GVR{Group: q.Get("group"), Version: q.Get("version"), Resource: q.Get("resource")}
				_, err = s.PutUnchecked(gvr, body)
			}
			if err != nil {
				return 0, errBadRequest("put-unchecked: %v", err)
			}
			return 0, nil
		}},
}

// serveAdmin serves the fault-injection endpoints under /fake/ from
// adminFaults: POST /fake/<name>?<query>, and GET /fake/stats. They need
// no token.
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
	i := slices.IndexFunc(adminFaults, func(f adminFault) bool { return f.name == name })
	if i < 0 {
		s.writeError(w, r, errNoResource())
		return
	}
	f := adminFaults[i]
	if f.answerFirst {
		writeValue(w, http.StatusOK, map[string]int{"affected": 0})
		// Flushed before the fault runs: it closes this connection too,
		// and an answer still buffered would be lost with it.
		_ = http.NewResponseController(w).Flush()
		s.wg.Add(1)
		go func() { defer s.wg.Done(); _, _ = f.do(s, r, r.URL.Query()) }()
		return
	}
	n, err := f.do(s, r, r.URL.Query())
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if f.closeAfter {
		w.Header().Set("Connection", "close")
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
