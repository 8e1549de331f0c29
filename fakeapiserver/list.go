package fakeapiserver

import (
	"net/http"
	"net/url"
	"slices"
	"strconv"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/zerokube/zerokube/fakeapiserver/internal/storage"
	"github.com/zerokube/zerokube/meta"
)

func (s *Server) handleGet(w http.ResponseWriter, r *http.Request, req request) {
	if req.res.Namespaced && req.ns == "" {
		s.writeError(w, r, storage.NotFound(req.res, req.name))
		return
	}
	o, err := s.store.Get(req.res, req.ns, req.name)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, o.Full())
}

func (s *Server) handleList(w http.ResponseWriter, r *http.Request, req request) {
	q := r.URL.Query()
	o, err := parseListOptions(q, false)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	f, err := s.selection(req, q)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if o.Continue != nil {
		token := o.Continue.RV
		o.ExpireContinue = func() bool {
			if !s.takeArmed(&s.faults.expirePages) {
				return false
			}
			s.record(FaultCompactMidList, "token", token)
			return true
		}
	}
	p, err := s.store.List(r.Context(), req.res, &f, o)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	s.writeList(w, req.res, &p)
}

// appendListHeader appends the list reply up to the opening of its items.
func appendListHeader(b []byte, res *Resource, p *storage.Page) []byte {
	b = append(b, `{"kind":`...)
	b, _ = jsontext.AppendQuote(b, res.Kind+"List")
	b = append(b, `,"apiVersion":`...)
	b, _ = jsontext.AppendQuote(b, res.APIVersion())
	b = append(b, `,"metadata":{"resourceVersion":"`...)
	b = strconv.AppendInt(b, p.RV, 10)
	b = append(b, '"')
	if p.Continue != "" {
		b = append(b, `,"continue":`...)
		b, _ = jsontext.AppendQuote(b, p.Continue)
	}
	if p.Remaining != nil {
		b = append(b, `,"remainingItemCount":`...)
		b = strconv.AppendInt(b, *p.Remaining, 10)
	}
	b = appendShardInfo(b, p.ShardInfo)
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
func (s *Server) writeList(w http.ResponseWriter, res *Resource, p *storage.Page) {
	bp := s.bufs.get()
	defer s.bufs.put(bp)
	b := appendListHeader((*bp)[:0], res, p)
	size := len(b) + len("]}") + max(len(p.Items)-1, 0)
	for _, o := range p.Items {
		size += o.ItemLen()
	}
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(size))
	w.WriteHeader(http.StatusOK)
	for i, o := range p.Items {
		if i > 0 {
			b = append(b, ',')
		}
		b = o.AppendItem(b)
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

// parseFilter reads labelSelector and fieldSelector; errors are 400s, as
// kube-apiserver answers them.
func parseFilter(res *Resource, ns string, q url.Values) (storage.Filter, error) {
	f := storage.Filter{NS: ns}
	var err error
	if f.Label, err = meta.ParseLabelSelector(q.Get("labelSelector")); err != nil {
		return f, errBadRequest("unable to parse requirement: %v", err)
	}
	if f.Field, err = meta.ParseFieldSelector(q.Get("fieldSelector")); err != nil {
		return f, errBadRequest("invalid field selector: %v", err)
	}
	for _, r := range f.Field.Requirements() {
		switch {
		case r.Field == "metadata.name" || r.Field == "metadata.namespace":
		case slices.Contains(res.FieldSelectors, r.Field):
		default:
			return f, errBadRequest("field label not supported: %s", r.Field)
		}
	}
	return f, nil
}

// parseListOptions reads the parameters of a LIST (watch false) or a WATCH
// (watch true) and checks them as kube-apiserver's ValidateListOptions
// does (apimachinery pkg/apis/meta/internalversion/validation): every
// broken rule is one cause of a 422, Forbidden or NotSupported.
func parseListOptions(q url.Values, watch bool) (storage.ListOptions, error) {
	o := storage.ListOptions{RV: -1, Match: q.Get("resourceVersionMatch")}
	contText := q.Get("continue")
	rvText := q.Get("resourceVersion")
	if rvText != "" {
		n, err := strconv.ParseInt(rvText, 10, 64)
		if err != nil || n < 0 {
			return o, errBadRequest("invalid resource version: %s", rvText)
		}
		o.RV = n
	}
	if l := q.Get("limit"); l != "" {
		n, err := strconv.ParseInt(l, 10, 64)
		if err != nil {
			return o, errBadRequest("invalid limit: %q", l)
		}
		o.Limit = max(n, 0)
	}
	var errs fieldErrors
	if watch {
		errs = watchOptionErrors(q, o.Match, contText)
	} else {
		errs = listOptionErrors(q, o.Match, rvText, contText)
	}
	if len(errs) > 0 {
		return o, errs.invalid("ListOptions", "meta.k8s.io")
	}
	if contText != "" && rvText != "" && rvText != "0" {
		return o, errBadRequest("specifying resource version is not allowed when using continue")
	}
	if contText != "" {
		t, err := storage.DecodeContinue(contText)
		if err != nil {
			return o, err
		}
		o.Continue = &t
	}
	return o, nil
}

func listOptionErrors(q url.Values, match, rvText, contText string) fieldErrors {
	var errs fieldErrors
	const f = "resourceVersionMatch"
	if match != "" {
		if rvText == "" {
			errs.forbidden(f, "resourceVersionMatch is forbidden unless resourceVersion is provided")
		}
		if contText != "" {
			errs.forbidden(f, "resourceVersionMatch is forbidden when continue is provided")
		}
		if match != meta.MatchExact && match != meta.MatchNotOlderThan {
			errs.notSupported(f, match, meta.MatchExact, meta.MatchNotOlderThan, "")
		}
		if match == meta.MatchExact && rvText == "0" {
			errs.forbidden(f, `resourceVersionMatch "exact" is forbidden for resourceVersion "0"`)
		}
	}
	if q.Has("sendInitialEvents") {
		errs.forbidden("sendInitialEvents", "sendInitialEvents is forbidden for list")
	}
	return errs
}

func watchOptionErrors(q url.Values, match, contText string) fieldErrors {
	var errs fieldErrors
	const f = "resourceVersionMatch"
	sendInitial := q.Has("sendInitialEvents")
	if sendInitial && match != meta.MatchNotOlderThan {
		errs.forbidden(f, "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan")
	}
	if match != "" {
		if !sendInitial {
			errs.forbidden(f, "resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided")
		}
		if match != meta.MatchNotOlderThan {
			errs.notSupported(f, match, meta.MatchNotOlderThan)
		}
		if contText != "" {
			errs.forbidden(f, "resourceVersionMatch is forbidden when continue is provided")
		}
	}
	return errs
}

// selection is what a LIST or WATCH selects: its label and field
// selectors, and its shard when the server honours shard selectors.
func (s *Server) selection(req request, q url.Values) (storage.Filter, error) {
	f, err := parseFilter(req.res, req.ns, q)
	if err == nil {
		err = s.shardFilter(&f, q)
	}
	return f, err
}
