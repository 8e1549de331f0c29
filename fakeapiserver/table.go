package fakeapiserver

import (
	"bytes"
	"net/http"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json"
)

// kubectl get asks for a meta.k8s.io/v1 Table ("Accept:
// application/json;as=Table;v=v1;g=meta.k8s.io, …") and prints its cells.
// Tables are made here, after the ordinary handler: a tableWriter stands in
// for the ResponseWriter, takes the JSON object, list or watch events the
// handler writes, and writes Tables in their place. Nothing else in the
// server knows about tables.

// wantsTable reports whether the first media type of Accept that the fake
// can serve is a meta.k8s.io/v1 Table.
func wantsTable(accept string) bool {
	for _, mt := range strings.Split(accept, ",") {
		params := map[string]string{}
		parts := strings.Split(mt, ";")
		for _, p := range parts[1:] {
			k, v, _ := strings.Cut(strings.TrimSpace(p), "=")
			params[k] = v
		}
		switch strings.TrimSpace(parts[0]) {
		case "application/json", "*/*", "application/*":
			return params["as"] == "Table" && params["v"] == "v1" && params["g"] == "meta.k8s.io"
		}
	}
	return false
}

// tableWriter turns the JSON a handler writes into Tables. For a get or a
// list it keeps the body and converts it in finish; for a watch it converts
// each event (one per line) as it comes, column definitions in the first
// only, as kube-apiserver does.
type tableWriter struct {
	http.ResponseWriter
	s       *Server
	watch   bool
	code    int
	body    bytes.Buffer
	headers bool // the next table still carries its column definitions
}

// asTable wraps w when r asks for a Table from a get, list or watch; the
// request is changed to ask the handler for plain, uncompressed JSON.
func (s *Server) asTable(w http.ResponseWriter, r *http.Request, verb string) (*tableWriter, *http.Request) {
	if (verb != "get" && verb != "list" && verb != "watch") || !wantsTable(r.Header.Get("Accept")) {
		return nil, r
	}
	r = r.Clone(r.Context())
	r.Header.Set("Accept", "application/json")
	r.Header.Del("Accept-Encoding")
	return &tableWriter{ResponseWriter: w, s: s, watch: verb == "watch", headers: true}, r
}

func (tw *tableWriter) WriteHeader(code int) {
	tw.code = code
	if tw.watch || code != http.StatusOK {
		tw.ResponseWriter.WriteHeader(code)
	}
}

func (tw *tableWriter) Write(p []byte) (int, error) {
	if tw.code == 0 {
		tw.WriteHeader(http.StatusOK)
	}
	if tw.code != http.StatusOK { // a Status: pass it on
		return tw.ResponseWriter.Write(p)
	}
	tw.body.Write(p)
	if tw.watch {
		return len(p), tw.convertEvents()
	}
	return len(p), nil
}

func (tw *tableWriter) Flush() {
	if f, ok := tw.ResponseWriter.(http.Flusher); ok && (tw.watch || tw.code != http.StatusOK) {
		f.Flush()
	}
}

// convertEvents writes every complete event line held as a Table event.
func (tw *tableWriter) convertEvents() error {
	for {
		line, _, ok := bytes.Cut(tw.body.Bytes(), []byte("\n"))
		if !ok {
			return nil
		}
		out := tw.convertEvent(line)
		tw.body.Next(len(line) + 1)
		if _, err := tw.ResponseWriter.Write(append(out, '\n')); err != nil {
			return err
		}
	}
}

// convertEvent turns the object of an ADDED, MODIFIED or DELETED event into
// a one-row Table; other events (BOOKMARK, ERROR) pass unchanged.
func (tw *tableWriter) convertEvent(line []byte) []byte {
	var ev struct {
		Type   string         `json:"type"`
		Object map[string]any `json:"object"`
	}
	if json.Unmarshal(line, &ev) != nil || ev.Type == "BOOKMARK" || ev.Type == "ERROR" {
		return line
	}
	tb := tw.s.table([]map[string]any{ev.Object}, field(ev.Object, "kind"), objectRV(ev.Object), tw.headers)
	tw.headers = false
	b, err := json.Marshal(map[string]any{"type": ev.Type, "object": tb}, deterministic)
	if err != nil {
		return line
	}
	return b
}

// finish writes the Table of a get or list whose body was kept.
func (tw *tableWriter) finish() {
	if tw.watch || tw.code != http.StatusOK {
		return
	}
	var doc map[string]any
	if err := json.Unmarshal(tw.body.Bytes(), &doc); err != nil {
		tw.s.writeError(tw.ResponseWriter, nil, err)
		return
	}
	var objs []map[string]any
	kind := field(doc, "kind")
	md, _ := doc["metadata"].(map[string]any)
	if items, ok := doc["items"].([]any); ok {
		kind = strings.TrimSuffix(kind, "List")
		for _, it := range items {
			if m, ok := it.(map[string]any); ok {
				objs = append(objs, m)
			}
		}
	} else {
		objs = []map[string]any{doc}
		md = map[string]any{"resourceVersion": objectRV(doc)}
	}
	tb := tw.s.table(objs, kind, "", true)
	tb["metadata"] = listMeta(md)
	b, err := json.Marshal(tb, deterministic)
	if err != nil {
		tw.s.writeError(tw.ResponseWriter, nil, err)
		return
	}
	tw.ResponseWriter.Header().Set("Content-Length", strconv.Itoa(len(b)))
	tw.ResponseWriter.WriteHeader(http.StatusOK)
	_, _ = tw.ResponseWriter.Write(b)
}

// listMeta keeps what a Table's metadata carries over from the list.
func listMeta(md map[string]any) map[string]any {
	out := map[string]any{}
	for _, k := range []string{"resourceVersion", "continue", "remainingItemCount"} {
		if v, ok := md[k]; ok {
			out[k] = v
		}
	}
	return out
}

// table builds a Table of objs of one kind. rows carry each object's
// metadata as a PartialObjectMetadata, as kubectl expects by default.
func (s *Server) table(objs []map[string]any, kind, resourceVersion string, headers bool) map[string]any {
	p := printerFor(kind)
	now := s.now()
	rows := make([]map[string]any, 0, len(objs))
	for _, o := range objs {
		row := map[string]any{"cells": p.cells(o, now), "object": map[string]any{
			"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1", "metadata": o["metadata"]}}
		if c := p.conditions(o); c != nil {
			row["conditions"] = c
		}
		rows = append(rows, row)
	}
	tb := map[string]any{"kind": "Table", "apiVersion": "meta.k8s.io/v1", "rows": rows,
		"metadata": map[string]any{"resourceVersion": resourceVersion}}
	if headers {
		tb["columnDefinitions"] = p.columns
	}
	return tb
}

func objectRV(o map[string]any) string { return field(o, "metadata", "resourceVersion") }

// field is the string at path in a decoded JSON object, "" when any step
// is missing or not of the expected type.
func field(m map[string]any, path ...string) string {
	for _, k := range path[:len(path)-1] {
		m, _ = m[k].(map[string]any)
	}
	key := path[len(path)-1]
	s, _ := m[key].(string)
	return s
}
