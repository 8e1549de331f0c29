package storage

import (
	"context"
	"encoding/base64"
	"strconv"

	"github.com/go-json-experiment/json"

	"github.com/zerokube/zerokube/meta"
	"github.com/zerokube/zerokube/shard"
)

// Filter selects the objects a list or watch returns. The zero value
// selects everything.
type Filter struct {
	NS    string // "" means all namespaces
	Label meta.LabelSelector
	Field meta.FieldSelector
	Shard *shard.Selector // nil: no shard selector (the front's shard.go)
}

func (f *Filter) selective() bool { return !f.Label.Empty() || !f.Field.Empty() || f.Shard != nil }

// Matches reports whether f selects o.
func (f *Filter) Matches(o *Object) bool {
	m := &o.raw.ObjectMeta
	if f.NS != "" && m.Namespace != f.NS {
		return false
	}
	if !f.Label.Matches(m.Labels) || (f.Shard != nil && !f.Shard.Contains(m)) {
		return false
	}
	if f.Field.Empty() {
		return true
	}
	var decoded object
	return f.Field.MatchesFunc(func(field string) (string, bool) {
		switch field {
		case "metadata.name":
			return m.Name, true
		case "metadata.namespace":
			return m.Namespace, true
		}
		if v, found := o.fields.get(field); found {
			return v.v, v.ok
		}
		if decoded == nil { // a field the resource did not list when o was built
			decoded = o.Decode()
		}
		return LookupField(decoded, field)
	})
}

// ContinueToken is the opaque continue parameter; it has the shape of
// kube-apiserver's (base64 of JSON with the list's RV and the next key).
type ContinueToken struct {
	V     string `json:"v"`
	RV    int64  `json:"rv"`
	Start string `json:"start"`
}

// EncodeContinue makes the continue token of a list at rv whose next key
// is at or after start.
func EncodeContinue(rv int64, start string) string {
	b, _ := json.Marshal(ContinueToken{V: "meta.k8s.io/v1", RV: rv, Start: start})
	return base64.RawURLEncoding.EncodeToString(b)
}

// DecodeContinue parses a continue parameter; a bad one is a 400.
func DecodeContinue(s string) (ContinueToken, error) {
	var t ContinueToken
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return t, BadRequest("continue key is not valid: illegal base64 data")
	}
	if err := json.Unmarshal(b, &t); err != nil || t.V != "meta.k8s.io/v1" {
		return t, BadRequest("continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)")
	}
	return t, nil
}

// Page is the result of one list call.
type Page struct {
	RV        int64
	Items     []*Object
	Continue  string // the token of the next page; "" on the last
	Remaining *int64 // remainingItemCount, when known
	ShardInfo string // the applied shard selector, "" for none
	last      int    // index in paginate's input of the last item
}

// ListMeta is the page's list metadata.
func (p *Page) ListMeta() meta.ListMeta {
	return meta.ListMeta{ResourceVersion: strconv.FormatInt(p.RV, 10), Continue: p.Continue, RemainingItemCount: p.Remaining}
}

// paginate cuts one page of at most limit matching objects out of es
// (sorted by key, already scoped to the request's namespace and continue
// key), with the continue token and remaining count for the rest.
func paginate(es []entry, f *Filter, rv, limit int64) Page {
	p := Page{RV: rv}
	if f.Shard != nil {
		p.ShardInfo = f.Shard.String()
	}
	for i, e := range es {
		if !f.Matches(e.obj) {
			continue
		}
		if limit > 0 && int64(len(p.Items)) == limit {
			p.Continue = EncodeContinue(rv, es[p.last].key+"\x00")
			if !f.selective() {
				n := int64(len(es) - i)
				p.Remaining = &n
			}
			return p
		}
		p.Items = append(p.Items, e.obj)
		p.last = i
	}
	return p
}

// ListOptions are the validated parameters of a LIST.
type ListOptions struct {
	RV       int64  // -1: unset
	Match    string // resourceVersionMatch: "", "Exact" or "NotOlderThan"
	Limit    int64  // 0: no limit
	Continue *ContinueToken
	// ExpireContinue, when set, is asked (under the store's lock) whether
	// to compact the history past a valid continue token first: the
	// front's CompactBetweenPages fault.
	ExpireContinue func() bool
}

// List serves one page under the resourceVersion rules of PROTOCOL.md.
func (s *Store) List(ctx context.Context, res *Resource, f *Filter, o ListOptions) (Page, error) {
	if o.Continue != nil {
		return s.listContinue(res, f, o)
	}
	exact := o.Match == meta.MatchExact || (o.Match == "" && o.RV > 0 && o.Limit > 0)
	if o.RV > 0 {
		if err := s.WaitForRV(ctx, o.RV); err != nil {
			return Page{}, err
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hist.trim(s.opts.Now())
	switch {
	case o.RV == 0:
		// "0" is served whole from the "watch cache": limit is ignored.
		return paginate(s.snapshotLocked(res, s.rv).scope(f.NS, ""), f, s.rv, 0), nil
	case exact:
		if o.RV < s.hist.compacted {
			return Page{}, Expired("The resourceVersion for the provided list is too old.")
		}
		return paginate(s.snapshotLocked(res, o.RV).scope(f.NS, ""), f, o.RV, o.Limit), nil
	default:
		return paginate(s.snapshotLocked(res, s.rv).scope(f.NS, ""), f, s.rv, o.Limit), nil
	}
}

// listContinue serves page 2+ from the snapshot the first page was cut from.
func (s *Store) listContinue(res *Resource, f *Filter, o ListOptions) (Page, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hist.trim(s.opts.Now())
	t := o.Continue
	if t.RV >= s.hist.compacted && t.RV <= s.rv && o.ExpireContinue != nil && o.ExpireContinue() {
		s.compactPastLocked(t.RV) // fault: etcd compacts between two pages
	}
	if t.RV == -1 {
		// An inconsistent continuation, handed out with a 410: the rest of
		// the list as it is now.
		return paginate(s.snapshotLocked(res, s.rv).scope(f.NS, t.Start), f, s.rv, o.Limit), nil
	}
	if t.RV < s.hist.compacted {
		e := Expired("The provided continue parameter is too old to display a consistent list result. " +
			"You can start a new list without the continue parameter, or use the continue token in this " +
			"response to retrieve the remainder of the results. Continuing with the provided token results " +
			"in an inconsistent list - objects that were created, modified, or deleted between the time the " +
			"first chunk was returned and now may show up in the list.")
		e.Status.Metadata.Continue = EncodeContinue(-1, t.Start)
		return Page{}, e
	}
	if t.RV > s.rv {
		return Page{}, BadRequest("continue key is not valid: resource version %d is in the future", t.RV)
	}
	return paginate(s.snapshotLocked(res, t.RV).scope(f.NS, t.Start), f, t.RV, o.Limit), nil
}
