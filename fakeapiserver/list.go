package fakeapiserver

import (
	"encoding/base64"
	"net/url"
	"slices"
	"strconv"

	"github.com/go-json-experiment/json"

	"github.com/zerokube/zerokube/meta"
	"github.com/zerokube/zerokube/shard"
)

// filter selects the objects a list or watch returns.
type filter struct {
	ns          string // "" means all namespaces
	label       meta.LabelSelector
	field       meta.FieldSelector
	needsObject bool            // the field selector names fields outside metadata
	shard       *shard.Selector // nil: no shard selector (see shard.go)
}

func (f *filter) selective() bool { return !f.label.Empty() || !f.field.Empty() || f.shard != nil }

// parseFilter reads labelSelector and fieldSelector; errors are 400s, as
// kube-apiserver answers them.
func parseFilter(res *Resource, ns string, q url.Values) (filter, error) {
	f := filter{ns: ns}
	var err error
	if f.label, err = meta.ParseLabelSelector(q.Get("labelSelector")); err != nil {
		return f, errBadRequest("unable to parse requirement: %v", err)
	}
	if f.field, err = meta.ParseFieldSelector(q.Get("fieldSelector")); err != nil {
		return f, errBadRequest("invalid field selector: %v", err)
	}
	for _, r := range f.field.Requirements() {
		switch {
		case r.Field == "metadata.name" || r.Field == "metadata.namespace":
		case slices.Contains(res.FieldSelectors, r.Field):
			f.needsObject = true
		default:
			return f, errBadRequest("field label not supported: %s", r.Field)
		}
	}
	return f, nil
}

func (f *filter) matches(o *stored) bool {
	m := &o.raw.ObjectMeta
	if f.ns != "" && m.Namespace != f.ns {
		return false
	}
	if !f.label.Matches(m.Labels) || !f.inShard(o) {
		return false
	}
	if f.field.Empty() {
		return true
	}
	var decoded object
	return f.field.MatchesFunc(func(field string) (string, bool) {
		switch field {
		case "metadata.name":
			return m.Name, true
		case "metadata.namespace":
			return m.Namespace, true
		}
		if decoded == nil {
			decoded = o.decode()
		}
		return lookupField(decoded, field)
	})
}

// continueToken is the opaque continue parameter; it has the shape of
// kube-apiserver's (base64 of JSON with the list's RV and the next key).
type continueToken struct {
	V     string `json:"v"`
	RV    int64  `json:"rv"`
	Start string `json:"start"`
}

func encodeContinue(rv int64, start string) string {
	b, _ := json.Marshal(continueToken{V: "meta.k8s.io/v1", RV: rv, Start: start})
	return base64.RawURLEncoding.EncodeToString(b)
}

func decodeContinue(s string) (continueToken, error) {
	var t continueToken
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return t, errBadRequest("continue key is not valid: illegal base64 data")
	}
	if err := json.Unmarshal(b, &t); err != nil || t.V != "meta.k8s.io/v1" {
		return t, errBadRequest("continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)")
	}
	return t, nil
}

// page is the result of one list call.
type page struct {
	rv        int64
	items     []*stored
	cont      string
	remaining *int64
	last      int    // index in paginate's input of the last item
	shardInfo string // the applied shard selector, "" for none
}

// paginate cuts one page of at most limit matching objects out of es
// (sorted by key, already scoped to the request's namespace and continue
// key), with the continue token and remaining count for the rest.
func paginate(es []entry, f *filter, rv, limit int64) page {
	p := page{rv: rv}
	for i, e := range es {
		if !f.matches(e.obj) {
			continue
		}
		if limit > 0 && int64(len(p.items)) == limit {
			p.cont = encodeContinue(rv, es[p.last].key+"\x00")
			if !f.selective() {
				n := int64(len(es) - i)
				p.remaining = &n
			}
			return p
		}
		p.items = append(p.items, e.obj)
		p.last = i
	}
	return p
}

// listOptions are the validated parameters of a LIST.
type listOptions struct {
	rv       int64 // -1: unset
	match    string
	limit    int64
	cont     *continueToken
	contText string
}

// parseListOptions applies the parameter rules of PROTOCOL.md, with the
// codes kube-apiserver answers (422 Invalid or 400 BadRequest).
func parseListOptions(q url.Values, watch bool) (listOptions, error) {
	o := listOptions{rv: -1, match: q.Get("resourceVersionMatch"), contText: q.Get("continue")}
	rvText := q.Get("resourceVersion")
	if rvText != "" {
		n, err := strconv.ParseInt(rvText, 10, 64)
		if err != nil || n < 0 {
			return o, errBadRequest("invalid resource version: %s", rvText)
		}
		o.rv = n
	}
	if l := q.Get("limit"); l != "" {
		n, err := strconv.ParseInt(l, 10, 64)
		if err != nil {
			return o, errBadRequest("invalid limit: %q", l)
		}
		o.limit = max(n, 0)
	}
	sendInitial := q.Get("sendInitialEvents")
	switch {
	case o.match != "" && o.match != "NotOlderThan" && o.match != "Exact":
		return o, errListInvalid("resourceVersionMatch", o.match, `supported values: "Exact", "NotOlderThan"`)
	case o.match != "" && rvText == "" && !watch:
		return o, errListInvalid("resourceVersionMatch", o.match, "resourceVersionMatch is forbidden unless resourceVersion is provided")
	case o.match != "" && o.contText != "":
		return o, errListInvalid("resourceVersionMatch", o.match, "resourceVersionMatch is forbidden when continue is provided")
	case o.match == "Exact" && rvText == "0":
		return o, errListInvalid("resourceVersionMatch", o.match, "resourceVersionMatch \"exact\" is forbidden for resourceVersion \"0\"")
	case !watch && sendInitial != "":
		return o, errListInvalid("sendInitialEvents", sendInitial, "sendInitialEvents is forbidden for list")
	case o.contText != "" && rvText != "" && rvText != "0":
		return o, errBadRequest("specifying resource version is not allowed when using continue")
	}
	if o.contText != "" {
		t, err := decodeContinue(o.contText)
		if err != nil {
			return o, err
		}
		o.cont = &t
	}
	return o, nil
}
