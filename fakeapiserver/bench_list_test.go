package fakeapiserver_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/zerokube/zerokube/fakeapiserver"
	"github.com/zerokube/zerokube/fakeapiserver/fakeapiservertest"
)

// listBenchPods is the table a reflector's initial sync reads in the bench/
// suite: 5,000 pods of about 5 KB.
const listBenchPods = 5000

// loadedForList starts a server holding listBenchPods pods of about 5 KB
// (a padding annotation stands in for the spec and managedFields of a real
// pod: the server copies bytes, it does not look inside them).
func loadedForList(b *testing.B) *fakeapiserver.Server {
	b.Helper()
	srv := fakeapiservertest.Start(b, fakeapiserver.Options{Logger: quiet()})
	pad := strings.Repeat("x", 4800)
	for i := range listBenchPods {
		p := pod(fmt.Sprintf("p%05d", i), map[string]string{"app": "web"})
		p["metadata"].(map[string]any)["annotations"] = map[string]any{"pad": pad}
		if _, err := srv.Create(podsGVR, p); err != nil {
			b.Fatal(err)
		}
	}
	return srv
}

// BenchmarkListPages is a paginated LIST of 5,000 pods of about 5 KB read
// to the end over loopback HTTP, as a reflector's first list reads it. One
// op is the whole list; us/page and allocs/page (server and client in this
// process) show whether a page costs O(page) or O(table): with 50-item
// pages a per-page copy and sort of the table shows 10× more than with 500.
// The pages go uncompressed, except in gzip=on, where the client asks for
// gzip as client-go does and every page (over 128 KiB) is compressed and
// inflated, as with a real kube-apiserver. metadata asks for a
// PartialObjectMetadataList, as a metadata-only informer does; us/obj is
// the whole list's time per pod.
func BenchmarkListPages(b *testing.B) {
	srv := loadedForList(b)
	for _, tc := range []struct {
		limit int
		// newRV writes (a ConfigMap) before each list, so every list is
		// at a new resourceVersion and builds its snapshot afresh.
		newRV    bool
		gzip     bool
		metadata bool
	}{{500, false, false, false}, {50, false, false, false}, {500, true, false, false}, {500, false, true, false}, {500, false, false, true}} {
		name := fmt.Sprintf("limit=%d", tc.limit)
		if tc.newRV {
			name += "/new-rv"
		}
		if tc.gzip {
			name += "/gzip=on"
		}
		accept := ""
		if tc.metadata {
			name += "/metadata"
			accept = "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json"
		}
		client := &http.Client{Transport: &http.Transport{DisableCompression: !tc.gzip}}
		defer client.CloseIdleConnections()
		b.Run(name, func(b *testing.B) {
			var body bytes.Buffer
			pages := 0
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			for b.Loop() {
				if tc.newRV {
					cm := fmt.Sprintf(`{"metadata":{"name":"cm%d","namespace":"default"}}`, srv.ResourceVersion())
					if _, err := srv.Create(cmGVR, cm); err != nil {
						b.Fatal(err)
					}
				}
				pages += readAllPages(b, client, srv.URL()+"/api/v1/pods", accept, tc.limit, &body, pages == 0)
			}
			runtime.ReadMemStats(&after)
			perPage := float64(b.Elapsed().Microseconds()) / float64(pages)
			b.ReportMetric(perPage, "us/page")
			b.ReportMetric(float64(after.Mallocs-before.Mallocs)/float64(pages), "allocs/page")
			b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(pages), "B/page")
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*listBenchPods), "us/obj")
		})
	}
}

// readAllPages lists base page by page, with Accept accept unless "",
// and returns the number of pages.
//
// The first read decodes every page whole and checks the item count; later
// reads only decode the metadata up front, so the client's share of the
// time stays small.
func readAllPages(b *testing.B, client *http.Client, base, accept string, limit int, body *bytes.Buffer, check bool) int {
	q := url.Values{"limit": {fmt.Sprint(limit)}}
	items := 0
	for pages := 1; ; pages++ {
		req, err := http.NewRequest("GET", base+"?"+q.Encode(), nil)
		if err != nil {
			b.Fatal(err)
		}
		if accept != "" {
			req.Header.Set("Accept", accept)
		}
		resp, err := client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		body.Reset()
		_, err = body.ReadFrom(resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK {
			b.Fatalf("list: %v %s", err, resp.Status)
		}
		cont, n, err := listContinue(body.Bytes(), check)
		if err != nil {
			b.Fatal(err)
		}
		items += n
		if cont == "" {
			if check && items != listBenchPods {
				b.Fatalf("listed %d pods, want %d", items, listBenchPods)
			}
			return pages
		}
		q.Set("continue", cont)
	}
}

// BenchmarkStreamingList is the streaming list of the same 5,000 pods: a
// watch with sendInitialEvents read until the bookmark that ends the initial
// events. Frames are counted, not decoded; us/obj is the server's cost per
// object plus the client's line scan (and, with gzip=on, the compression of
// the stream and its inflating by net/http).
func BenchmarkStreamingList(b *testing.B) {
	srv := loadedForList(b)
	u := srv.URL() + "/api/v1/pods?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true"
	for _, gz := range []bool{false, true} {
		client := &http.Client{Transport: &http.Transport{DisableCompression: !gz}}
		defer client.CloseIdleConnections()
		b.Run(fmt.Sprintf("gzip=%s", map[bool]string{false: "off", true: "on"}[gz]), func(b *testing.B) {
			objects := 0
			for b.Loop() {
				objects += readInitialEvents(b, client, u)
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(objects), "us/obj")
		})
	}
}

// readInitialEvents opens the watch, counts ADDED frames up to the
// initial-events-end bookmark, and closes it.
func readInitialEvents(b *testing.B, client *http.Client, u string) int {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, "GET", u, nil)
	if err != nil {
		b.Fatal(err)
	}
	resp, err := client.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	n := 0
	for sc.Scan() {
		line := sc.Bytes()
		if bytes.HasPrefix(line, []byte(`{"type":"BOOKMARK"`)) {
			if n != listBenchPods {
				b.Fatalf("%d initial events, want %d", n, listBenchPods)
			}
			cancel()
			_, _ = io.Copy(io.Discard, resp.Body)
			return n
		}
		n++
	}
	b.Fatalf("stream ended after %d events: %v", n, sc.Err())
	return n
}

// listContinue returns the continue token of a list reply and, when whole
// is set, the number of its items (otherwise 0).
func listContinue(body []byte, whole bool) (string, int, error) {
	var l struct {
		Metadata struct {
			Continue string `json:"continue"`
		} `json:"metadata"`
		Items []struct{} `json:"items"`
	}
	if whole {
		err := json.Unmarshal(body, &l)
		return l.Metadata.Continue, len(l.Items), err
	}
	dec := jsontext.NewDecoder(bytes.NewReader(body))
	if _, err := dec.ReadToken(); err != nil { // {
		return "", 0, err
	}
	for dec.PeekKind() != '}' {
		tok, err := dec.ReadToken()
		if err != nil {
			return "", 0, err
		}
		name := tok.String() // before ReadValue voids tok
		v, err := dec.ReadValue()
		if err != nil {
			return "", 0, err
		}
		if name == "metadata" {
			err := json.Unmarshal(v, &l.Metadata)
			return l.Metadata.Continue, 0, err
		}
	}
	return "", 0, fmt.Errorf("list reply without metadata")
}
