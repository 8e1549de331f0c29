package conformance

import (
	"bytes"
	"context"
	"crypto/rand"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/apiclient"
	"github.com/zerokube/zerokube/conformance/kubetest"
	"github.com/zerokube/zerokube/fakeapiserver"
	"github.com/zerokube/zerokube/fakeapiserver/fakeapiservertest"
)

// target is one server a scenario runs against.
type target struct {
	name  string // "fake" or "kube-apiserver"
	url   string
	token string
	http  *http.Client
	cfg   *apiclient.Config
	fake  *fakeapiserver.Server // nil on the real server
}

const fakeToken = "conformance-token"

func fakeTarget(t *testing.T) *target {
	srv := fakeapiservertest.Start(t, fakeapiserver.Options{TLS: true, Tokens: []fakeapiserver.Token{{Value: fakeToken}},
		Logger: quiet()})
	cfg := fakeapiservertest.ClientConfig(srv)
	return &target{name: "fake", url: srv.URL(), token: fakeToken, http: httpClient(t, cfg), cfg: cfg, fake: srv}
}

func realTarget(t *testing.T, srv *kubetest.Server) *target {
	cfg := srv.ClientConfig()
	return &target{name: "kube-apiserver", url: srv.URL(), token: srv.Token(), http: httpClient(t, cfg), cfg: cfg}
}

func httpClient(t *testing.T, cfg *apiclient.Config) *http.Client {
	c := &http.Client{Transport: tlsTransport(cfg.TLS.CAData)}
	t.Cleanup(c.CloseIdleConnections)
	return c
}

// reply is one HTTP answer, its body decoded when it is JSON.
type reply struct {
	code   int
	header http.Header
	raw    []byte
	body   map[string]any
}

// do sends one request. hdr holds header name/value pairs; a body is sent as
// application/json unless hdr says otherwise.
func (tg *target) do(t *testing.T, method, path, body string, hdr ...string) reply {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, tg.url+path, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+tg.token)
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "conformance/v0 (linux/amd64) zerokube")
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := tg.http.Do(req)
	require.NoError(t, err, "%s %s", method, path)
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	r := reply{code: resp.StatusCode, header: resp.Header, raw: raw}
	if len(raw) > 0 && raw[0] == '{' {
		require.NoError(t, json.Unmarshal(raw, &r.body), "%s %s: %s", method, path, raw)
	}
	return r
}

// must sends one request and fails the test unless the code is want.
func (tg *target) must(t *testing.T, want int, method, path, body string, hdr ...string) map[string]any {
	t.Helper()
	r := tg.do(t, method, path, body, hdr...)
	require.Equal(t, want, r.code, "%s %s on %s: %s", method, path, tg.name, r.raw)
	return r.body
}

// namespace creates a namespace of the scenario's own.
func (tg *target) namespace(t *testing.T) string {
	t.Helper()
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	ns := fmt.Sprintf("conf-%x", b)
	tg.must(t, 201, "POST", "/api/v1/namespaces", `{"metadata":{"name":"`+ns+`"}}`)
	return ns
}

// expire makes history older than now unreachable, then calls try until it
// reports 410 or the deadline passes. The fake compacts at once; the real
// server compacts every kubetest CompactionInterval, and a write (in ns)
// from time to time moves the compaction point past the old revisions.
func (tg *target) expire(t *testing.T, ns string, try func() bool) {
	t.Helper()
	if tg.fake != nil { // like etcd, the fake can still read at the compaction point: write once more first
		tg.must(t, 201, "POST", "/api/v1/namespaces/"+ns+"/configmaps", `{"metadata":{"generateName":"tick-"}}`)
		tg.fake.Compact(0)
		require.True(t, try(), "fake: not expired after Compact")
		return
	}
	deadline := time.Now().Add(90 * time.Second)
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for i := 0; !try(); i++ {
		require.True(t, time.Now().Before(deadline), "kube-apiserver: not expired after 90 s")
		tg.must(t, 201, "POST", "/api/v1/namespaces/"+ns+"/configmaps", fmt.Sprintf(`{"metadata":{"name":"tick-%d"}}`, i))
		<-tick.C
	}
}

func obj(s string, args ...any) string { return fmt.Sprintf(s, args...) }

func jsonBytes(v any) []byte {
	var buf bytes.Buffer
	_ = json.MarshalWrite(&buf, v, json.Deterministic(true))
	return buf.Bytes()
}
