package fakeapiserver

import (
	"context"
	"net/http"
	"strconv"
	"time"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/zerokube/zerokube/meta"
)

func (s *Server) handleGet(w http.ResponseWriter, r *http.Request, req request) {
	s.mu.Lock()
	o := s.tableLocked(req.res)[keyOf(req.res, req.ns, req.name)]
	s.mu.Unlock()
	if o == nil || (req.res.Namespaced && req.ns == "") {
		s.writeError(w, r, errNotFound(req.res, req.name))
		return
	}
	writeJSON(w, http.StatusOK, o.full())
}

func (s *Server) handleList(w http.ResponseWriter, r *http.Request, req request) {
	q := r.URL.Query()
	o, err := parseListOptions(q, false)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	f, err := parseFilter(req.res, req.ns, q)
	if err == nil {
		err = s.shardFilter(&f, q)
	}
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	p, err := s.list(r.Context(), req.res, &f, o)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	p.shardInfo = f.shardInfo()
	s.writeList(w, req.res, &p)
}

// list serves one page under the resourceVersion rules of PROTOCOL.md.
func (s *Server) list(ctx context.Context, res *Resource, f *filter, o listOptions) (page, error) {
	if o.cont != nil {
		return s.listContinue(res, f, o)
	}
	exact := o.match == "Exact" || (o.match == "" && o.rv > 0 && o.limit > 0)
	if o.rv > 0 {
		if err := s.waitForRV(ctx, o.rv); err != nil {
			return page{}, err
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hist.trim(s.now())
	switch {
	case o.rv == 0:
		// "0" is served whole from the "watch cache": limit is ignored.
		return paginate(s.snapshotLocked(res, s.rv).scope(f.ns, ""), f, s.rv, 0), nil
	case exact:
		if o.rv < s.hist.compacted {
			return page{}, errExpired("The resourceVersion for the provided list is too old.")
		}
		return paginate(s.snapshotLocked(res, o.rv).scope(f.ns, ""), f, o.rv, o.limit), nil
	default:
		return paginate(s.snapshotLocked(res, s.rv).scope(f.ns, ""), f, s.rv, o.limit), nil
	}
}

// listContinue serves page 2+ from the snapshot the first page was cut from.
func (s *Server) listContinue(res *Resource, f *filter, o listOptions) (page, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hist.trim(s.now())
	t := o.cont
	if t.RV >= s.hist.compacted && t.RV <= s.rv && s.takeArmed(&s.faults.expirePages) {
		s.compactPastLocked(t.RV) // fault: etcd compacts between two pages
	}
	if t.RV == -1 {
		// An inconsistent continuation, handed out with a 410: the rest of
		// the list as it is now.
		return paginate(s.snapshotLocked(res, s.rv).scope(f.ns, t.Start), f, s.rv, o.limit), nil
	}
	if t.RV < s.hist.compacted {
		e := errExpired("The provided continue parameter is too old to display a consistent list result. " +
			"You can start a new list without the continue parameter, or use the continue token in this " +
			"response to retrieve the remainder of the results. Continuing with the provided token results " +
			"in an inconsistent list - objects that were created, modified, or deleted between the time the " +
			"first chunk was returned and now may show up in the list.")
		e.Status.Metadata.Continue = encodeContinue(-1, t.Start)
		return page{}, e
	}
	if t.RV > s.rv {
		return page{}, errBadRequest("continue key is not valid: resource version %d is in the future", t.RV)
	}
	return paginate(s.snapshotLocked(res, t.RV).scope(f.ns, t.Start), f, t.RV, o.limit), nil
}

// waitForRV waits until the server reaches rv, or answers 504 with the
// ResourceVersionTooLarge cause after Options.TooLargeWait.
func (s *Server) waitForRV(ctx context.Context, rv int64) error {
	timer := time.NewTimer(s.opts.TooLargeWait)
	defer timer.Stop()
	for {
		s.mu.Lock()
		cur, ch := s.rv, s.rvChanged
		s.mu.Unlock()
		if cur >= rv {
			return nil
		}
		select {
		case <-ch:
		case <-timer.C:
			return errTooLarge(rv)
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// appendListHeader appends the list reply up to the opening of its items.
func appendListHeader(b []byte, res *Resource, p *page) []byte {
	b = append(b, `{"kind":`...)
	b, _ = jsontext.AppendQuote(b, res.Kind+"List")
	b = append(b, `,"apiVersion":`...)
	b, _ = jsontext.AppendQuote(b, res.apiVersion())
	b = append(b, `,"metadata":{"resourceVersion":"`...)
	b = appendInt(b, p.rv)
	b = append(b, '"')
	if p.cont != "" {
		b = append(b, `,"continue":`...)
		b, _ = jsontext.AppendQuote(b, p.cont)
	}
	if p.remaining != nil {
		b = append(b, `,"remainingItemCount":`...)
		b = appendInt(b, *p.remaining)
	}
	b = appendShardInfo(b, p.shardInfo)
	return append(b, `},"items":[`...)
}

// listFlushAt is how much of a list reply is gathered before it is written:
// large enough that a 2.6 MB page is a few dozen writes, small enough that
// the pooled buffer stays small.
const listFlushAt = 128 << 10

// writeList answers with the list reply: items without kind and apiVersion,
// and `"items":[]` for an empty list, as kube-apiserver sends them. The
// stored bytes are copied as they are through one pooled buffer, with the
// length computed up front, so a page costs no allocation proportional to
// its size and no re-encoding.
func (s *Server) writeList(w http.ResponseWriter, res *Resource, p *page) {
	bp := s.bufs.get()
	defer s.bufs.put(bp)
	b := appendListHeader((*bp)[:0], res, p)
	size := len(b) + len("]}") + max(len(p.items)-1, 0)
	for _, o := range p.items {
		size += o.itemLen()
	}
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(size))
	w.WriteHeader(http.StatusOK)
	for i, o := range p.items {
		if i > 0 {
			b = append(b, ',')
		}
		b = o.appendItem(b)
		if len(b) >= listFlushAt {
			if _, err := w.Write(b); err != nil {
				*bp = b
				return // the client left; nothing more to say
			}
			b = b[:0]
		}
	}
	b = append(b, "]}"...)
	_, _ = w.Write(b)
	*bp = b
}

// listMeta is what the Go API returns with a list.
func (p page) listMeta() meta.ListMeta {
	return meta.ListMeta{ResourceVersion: itoa(p.rv), Continue: p.cont, RemainingItemCount: p.remaining}
}
