package fakeapiserver

import (
	"fmt"

	"github.com/zerokube/zerokube/fakeapiserver/internal/storage"
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
	rv = s.store.Restore(rv)
	n := s.conns.closeAll()
	s.record(FaultRestore, "rv", rv, "connections", n)
	return rv
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

// PutUnchecked stores obj as it is, without the checks and defaults of a
// write (it keeps its own fields, types and all), as if another writer had
// put it there: a newer API server, a conversion webhook with a bug, or a
// schema that changed under the clients. Watchers get the usual ADDED or
// MODIFIED event. Use it for an object the clients' types cannot decode
// ("port": "http" where a client declares int32); Update or Delete it later
// to fix or remove it. obj needs metadata.name, and metadata.namespace for
// a namespaced resource.
func (s *Server) PutUnchecked(gvr meta.GVR, obj any) (*meta.Raw, error) {
	res, m, err := s.resourceAndObject(gvr, obj)
	if err != nil {
		return nil, err
	}
	md := storage.MetadataOf(m)
	ns, name := storage.Str(md, "namespace"), storage.Str(md, "name")
	if name == "" || (res.Namespaced && ns == "") {
		return nil, fmt.Errorf("fakeapiserver: PutUnchecked %s: metadata.name and (for namespaced resources) metadata.namespace are required", res.Qualified())
	}
	o, err := s.store.Put(res, m)
	if err != nil {
		return nil, err
	}
	s.record(FaultUndecodableObject, "key", res.Key(ns, name), "rv", o.RV())
	return o.Raw(), nil
}
