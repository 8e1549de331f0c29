package fakeapiserver

import (
	"fmt"

	"github.com/zerokube/zerokube/meta"
)

// Faults that rewrite what the server stores: a restore from a backup,
// compaction racing a paginated list, an object no client type expects.

// Restore rolls every resource back to its state at rv, as when etcd is
// restored from a backup taken then: the server's resourceVersion goes back
// to rv (the next write gets rv+1 again, so resourceVersions a client has
// already seen come back with other content), the history after rv is gone,
// and every connection is dropped as the API servers restart. A client that
// holds a later resourceVersion now asks for the future: a LIST at it gets
// 504 ResourceVersionTooLarge after Options.TooLargeWait, a streaming list
// gets that 504 as an ERROR event, and a plain WATCH from it stays silent
// until the server passes it, then misses the writes that reused its
// resourceVersions. rv older than the history can rebuild is moved up to
// the oldest it can; Restore returns the resourceVersion restored to.
func (s *Server) Restore(rv int64) int64 {
	s.mu.Lock()
	rv = min(max(rv, s.hist.compacted), s.rv)
	for res := range s.tables {
		t := make(map[string]*stored)
		for _, e := range s.stateLocked(res, rv) {
			t[e.key] = e.obj
		}
		s.tables[res] = t
	}
	s.hist.truncate(rv)
	s.snaps = snapshotCache{} // snapshots past rv would be served for reused RVs
	s.rv = rv
	s.endAllWatchersLocked("fault: restore")
	s.mu.Unlock()
	n := s.conns.closeAll()
	s.record(FaultRestore, "rv", rv, "connections", n)
	return rv
}

// truncate drops every event after rv, as a restore to rv loses them.
func (h *history) truncate(rv int64) {
	n := len(h.since(rv))
	clear(h.events[len(h.events)-n:])
	h.events = h.events[:len(h.events)-n]
}

// CompactBetweenPages arms the next n continue requests (Forever: every
// one, until ClearFaults) to find the history compacted past their token,
// as when etcd compacts while a client pages through a long list: each gets
// 410 Expired with an inconsistent continue token, as kube-apiserver
// answers. A LIST that is not paginated, at the list's resourceVersion
// without a limit, still succeeds (it is not an exact read).
func (s *Server) CompactBetweenPages(n int) {
	s.faults.mu.Lock()
	s.faults.expirePages = n
	s.faults.mu.Unlock()
}

// compactPastLocked compacts the history past rv, for a continue request
// armed by CompactBetweenPages. When no write came after rv, the
// resourceVersion first moves on by one, as a write to a key no resource
// shows would move etcd's revision. Requires s.mu.
func (s *Server) compactPastLocked(rv int64) {
	if s.rv <= rv {
		s.rv++
		close(s.rvChanged)
		s.rvChanged = make(chan struct{})
	}
	s.hist.compact(s.rv)
	s.snaps.expire(s.hist.compacted)
	s.record(FaultCompactMidList, "rv", s.rv, "token", rv)
}

// PutUnchecked stores obj as it is, without the checks and defaults of a
// write (it keeps its own fields, types and all), as if another writer had
// put it there: a newer API server, a conversion webhook with a bug, or a
// schema that changed under the clients. Watchers get the usual ADDED or
// MODIFIED event. Use it for an object the clients' types cannot decode
// ("port": "http" where a client declares int32); Update or Delete it later
// to fix or remove it. obj needs metadata.name, and metadata.namespace for
// a namespaced resource.
func (s *Server) PutUnchecked(gvr meta.GVR, obj any) (*meta.Raw, error) {
	res, err := s.resource(gvr)
	if err != nil {
		return nil, err
	}
	m, err := toObject(obj)
	if err != nil {
		return nil, err
	}
	md := metadataOf(m)
	ns, name := str(md, "namespace"), str(md, "name")
	if name == "" || (res.Namespaced && ns == "") {
		return nil, fmt.Errorf("fakeapiserver: PutUnchecked %s: metadata.name and (for namespaced resources) metadata.namespace are required", res.qualified())
	}
	s.mu.Lock()
	key := keyOf(res, ns, name)
	prev := s.tableLocked(res)[key]
	if str(md, "uid") == "" {
		md["uid"] = newUID()
		if prev != nil {
			md["uid"] = prev.raw.UID
		}
	}
	o, err := build(res, m, s.rv+1)
	if err != nil {
		s.mu.Unlock()
		return nil, err
	}
	s.rv++
	typ := meta.Added
	if prev != nil {
		typ = meta.Modified
	}
	s.commitLocked(res, typ, key, o, prev)
	s.mu.Unlock()
	s.record(FaultUndecodableObject, "key", key, "rv", o.rv)
	return o.raw, nil
}
