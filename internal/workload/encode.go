package workload

import (
	"encoding/base64"
	"fmt"
	"slices"
	"strconv"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/zerokube/zerokube/meta"
)

// AppendList appends a list reply as kube-apiserver writes it: kind,
// apiVersion, metadata (resourceVersion, then continue and
// remainingItemCount when set), then items, whose elements are appended as
// they are (list items of built-in types carry no kind or apiVersion).
func AppendList(dst []byte, kind, apiVersion string, lm meta.ListMeta, items [][]byte) []byte {
	dst = slices.Grow(dst, int(totalSize(items))+len(items)+len(lm.Continue)+128)
	dst = append(dst, `{"kind":`...)
	dst, _ = jsontext.AppendQuote(dst, kind)
	dst = append(dst, `,"apiVersion":`...)
	dst, _ = jsontext.AppendQuote(dst, apiVersion)
	dst = append(dst, `,"metadata":{"resourceVersion":`...)
	dst, _ = jsontext.AppendQuote(dst, lm.ResourceVersion)
	if lm.Continue != "" {
		dst = append(dst, `,"continue":`...)
		dst, _ = jsontext.AppendQuote(dst, lm.Continue)
	}
	if lm.RemainingItemCount != nil {
		dst = append(dst, `,"remainingItemCount":`...)
		dst = strconv.AppendInt(dst, *lm.RemainingItemCount, 10)
	}
	dst = append(dst, `},"items":[`...)
	for i, it := range items {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, it...)
	}
	return append(dst, "]}\n"...)
}

// Pages splits items into list replies of at most limit items, each but
// the last carrying a continue token and remainingItemCount, as a paginated
// LIST at resourceVersion rv returns them. The token is opaque to clients;
// ContinueToken makes the one page n (from 0) carries.
func Pages(kind, apiVersion, rv string, items [][]byte, limit int) [][]byte {
	if limit <= 0 {
		limit = len(items)
	}
	var pages [][]byte
	for start := 0; start < len(items) || start == 0; start += limit {
		end := min(start+limit, len(items))
		lm := meta.ListMeta{ResourceVersion: rv}
		if end < len(items) {
			lm.Continue = ContinueToken(rv, end)
			remaining := int64(len(items) - end)
			lm.RemainingItemCount = &remaining
		}
		pages = append(pages, AppendList(nil, kind, apiVersion, lm, items[start:end]))
		if end == len(items) {
			break
		}
	}
	return pages
}

// ContinueToken is the continue token of the page that starts at item
// start, shaped like kube-apiserver's (base64 of a small JSON object).
func ContinueToken(rv string, start int) string {
	return base64.RawURLEncoding.EncodeToString(fmt.Appendf(nil, `{"v":"meta.k8s.io/v1","rv":%s,"start":"%d"}`, rv, start))
}

// PageIndex decodes a token made by ContinueToken back to its start item.
func PageIndex(token string) (int, error) {
	b, err := base64.RawURLEncoding.DecodeString(token)
	if err != nil {
		return 0, fmt.Errorf("workload: continue token: %w", err)
	}
	var tok struct {
		Start string `json:"start"`
	}
	if err := json.Unmarshal(b, &tok); err != nil {
		return 0, fmt.Errorf("workload: continue token: %w", err)
	}
	n, err := strconv.Atoi(tok.Start)
	if err != nil {
		return 0, fmt.Errorf("workload: continue token: %w", err)
	}
	return n, nil
}

// WithTypeMeta returns item with kind and apiVersion written first, as a
// watch event's object carries them.
func WithTypeMeta(item []byte, kind, apiVersion string) []byte {
	out := append(make([]byte, 0, len(item)+len(kind)+len(apiVersion)+32), `{"kind":`...)
	out, _ = jsontext.AppendQuote(out, kind)
	out = append(out, `,"apiVersion":`...)
	out, _ = jsontext.AppendQuote(out, apiVersion)
	if len(item) > 2 { // item is "{…}": keep its members after ours
		out = append(out, ',')
	}
	return append(out, item[1:]...)
}
