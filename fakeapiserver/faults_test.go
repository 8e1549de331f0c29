package fakeapiserver_test

import (
	"context"
	"encoding/base64"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/gorilla/websocket"
	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/fakeapiserver"
	"github.com/zerokube/zerokube/fakeapiserver/fakeapiservertest"
	"github.com/zerokube/zerokube/meta"
)

func TestFailNextAnswersInjectedStatuses(t *testing.T) {
	srv := fakeapiservertest.Start(t, fakeapiserver.Options{Logger: quiet()})
	u := srv.URL() + "/api/v1/pods"
	for _, tc := range []struct {
		code   int
		reason string
		retry  string
	}{
		{500, "InternalError", ""}, {503, "ServiceUnavailable", ""}, {429, "TooManyRequests", "2"}, {504, "Timeout", "2"},
	} {
		t.Run(strconv.Itoa(tc.code), func(t *testing.T) {
			srv.FailNext(fakeapiserver.Failure{Count: 2, Code: tc.code, Verb: "list", RetryAfter: 2 * time.Second})
			for range 2 {
				resp, err := http.Get(u)
				require.NoError(t, err)
				resp.Body.Close()
				require.Equal(t, tc.code, resp.StatusCode)
				require.Equal(t, tc.retry, resp.Header.Get("Retry-After"))
			}
			code, _ := get(t, u)
			require.Equal(t, 200, code, "only the next two fail")
		})
	}
	code, st := call(t, "POST", srv.URL()+"/fake/fail?code=504&path=/pods", "", "")
	require.Equal(t, 200, code, st)
	code, st = get(t, u)
	require.Equal(t, 504, code)
	require.Equal(t, "ResourceVersionTooLarge", st["details"].(map[string]any)["causes"].([]any)[0].(map[string]any)["reason"])
	require.Equal(t, int64(9), srv.Stats().Faults[fakeapiserver.FaultFail])
}

func TestDropWatchesEndsStreamsCleanly(t *testing.T) {
	srv := fakeapiservertest.Start(t, fakeapiserver.Options{Logger: quiet()})
	w := openWatch(t, srv.URL()+"/api/v1/pods?watch=1&resourceVersion="+strconv.FormatInt(srv.ResourceVersion(), 10), nil)
	ctx, cancel := context.WithTimeout(context.Background(), shortWait)
	defer cancel()
	require.NoError(t, srv.AwaitWatchers(ctx, 1))
	code, _ := call(t, "POST", srv.URL()+"/fake/drop-watches", "", "")
	require.Equal(t, 200, code)
	_, more := w.next()
	require.False(t, more)
	require.NoError(t, w.sc.Err(), "a clean end, not a broken connection")
	require.Equal(t, int64(1), srv.Stats().Faults[fakeapiserver.FaultDropWatches])
}

func TestCutWatchTruncatesTheNextEvent(t *testing.T) {
	srv := fakeapiservertest.Start(t, fakeapiserver.Options{Logger: quiet()})
	resp, err := http.Get(srv.URL() + "/api/v1/pods?watch=1&resourceVersion=" + strconv.FormatInt(srv.ResourceVersion(), 10))
	require.NoError(t, err)
	defer resp.Body.Close()
	ctx, cancel := context.WithTimeout(context.Background(), shortWait)
	defer cancel()
	require.NoError(t, srv.AwaitWatchers(ctx, 1))
	require.Equal(t, 1, srv.CutWatches())
	mustCreate(t, srv, podsGVR, pod("a", nil))
	b, err := io.ReadAll(resp.Body)
	require.Error(t, err, "the connection drops without the final chunk")
	require.True(t, strings.HasPrefix(string(b), `{"type":"ADDED"`))
	require.False(t, strings.HasSuffix(string(b), "\n"), "the event is cut in half")
}

func TestInjectMalformedEventThenStreamGoesOn(t *testing.T) {
	srv := fakeapiservertest.Start(t, fakeapiserver.Options{Logger: quiet()})
	w := openWatch(t, srv.URL()+"/api/v1/pods?watch=1&resourceVersion="+strconv.FormatInt(srv.ResourceVersion(), 10), nil)
	ctx, cancel := context.WithTimeout(context.Background(), shortWait)
	defer cancel()
	require.NoError(t, srv.AwaitWatchers(ctx, 1))
	require.Equal(t, 1, srv.InjectMalformedEvent())
	require.True(t, w.sc.Scan())
	require.Equal(t, strings.TrimSpace(fakeapiserver.MalformedFrame), w.sc.Text())
	mustCreate(t, srv, podsGVR, pod("a", nil))
	require.Equal(t, "a", nameOf(w.mustNext()))
}

// A dropped event is not a gap any client can see: the next event comes
// with its own, later resourceVersion, and the stream goes on.
func TestDropEventSkipsOneEventSilently(t *testing.T) {
	srv := fakeapiservertest.Start(t, fakeapiserver.Options{Logger: quiet()})
	w := openWatch(t, srv.URL()+"/api/v1/pods?watch=1&resourceVersion="+strconv.FormatInt(srv.ResourceVersion(), 10), nil)
	ctx, cancel := context.WithTimeout(context.Background(), shortWait)
	defer cancel()
	require.NoError(t, srv.AwaitWatchers(ctx, 1))
	code, _ := call(t, "POST", srv.URL()+"/fake/drop-event", "", "")
	require.Equal(t, 200, code)
	mustCreate(t, srv, podsGVR, pod("a", nil))
	mustCreate(t, srv, podsGVR, pod("b", nil))
	mustCreate(t, srv, podsGVR, pod("c", nil))
	require.Equal(t, "b", nameOf(w.mustNext()), "a's ADDED was dropped")
	require.Equal(t, "c", nameOf(w.mustNext()), "only one")
	_, err := srv.Get(podsGVR, "default", "a")
	require.NoError(t, err, "the server has a: only its event was lost")
	require.Equal(t, int64(1), srv.Stats().Faults[fakeapiserver.FaultDropEvent])
}

func TestStalledWatchKeepsItsConnectionUntilRestart(t *testing.T) {
	srv := fakeapiservertest.Start(t, fakeapiserver.Options{Logger: quiet()})
	mustCreate(t, srv, podsGVR, pod("a", nil))
	resp, err := http.Get(srv.URL() + "/api/v1/pods?watch=1&resourceVersion=" + strconv.FormatInt(srv.ResourceVersion(), 10))
	require.NoError(t, err)
	defer resp.Body.Close()
	ctx, cancel := context.WithTimeout(context.Background(), shortWait)
	defer cancel()
	require.NoError(t, srv.AwaitWatchers(ctx, 1))
	require.Equal(t, 1, srv.StallWatches())
	mustCreate(t, srv, podsGVR, pod("b", nil))
	read := make(chan error, 1)
	go func() {
		_, err := resp.Body.Read(make([]byte, 1))
		read <- err
	}()
	select {
	case err := <-read:
		t.Fatalf("a stalled stream delivered data or closed: %v", err)
	case <-time.After(100 * time.Millisecond): // a negative check: nothing arrives
	}
	srv.Restart()
	require.Error(t, <-read, "restart drops the connection")
	obj, err := srv.Get(podsGVR, "default", "b")
	require.NoError(t, err, "state survives a restart")
	require.Equal(t, "b", obj.Name)
	f := srv.Stats().Faults
	require.Equal(t, int64(1), f[fakeapiserver.FaultStall])
	require.Equal(t, int64(1), f[fakeapiserver.FaultRestart])
}

func TestLatencyDelaysRequests(t *testing.T) {
	srv := fakeapiservertest.Start(t, fakeapiserver.Options{Logger: quiet()})
	srv.SetLatency(50 * time.Millisecond)
	start := time.Now()
	code, _ := get(t, srv.URL()+"/api/v1/pods")
	require.Equal(t, 200, code)
	require.GreaterOrEqual(t, time.Since(start), 50*time.Millisecond)
	srv.SetLatency(0)
	require.Equal(t, int64(1), srv.Stats().Faults[fakeapiserver.FaultLatency])
}

func TestBearerTokensAuthenticateAndAuthorize(t *testing.T) {
	srv := fakeapiservertest.Start(t, fakeapiserver.Options{Logger: quiet(), Tokens: []fakeapiserver.Token{
		{Value: "admin"}, {Value: "cm-only", Resources: []string{"configmaps"}}, {Value: "reader", Verbs: []string{"get", "list", "watch"}}}})
	do := func(token, path string) int {
		req, err := http.NewRequest("GET", srv.URL()+path, nil)
		require.NoError(t, err)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		return resp.StatusCode
	}
	require.Equal(t, 401, do("", "/api/v1/pods"))
	require.Equal(t, 401, do("wrong", "/api/v1/pods"))
	require.Equal(t, 200, do("admin", "/api/v1/pods"))
	require.Equal(t, 403, do("cm-only", "/api/v1/pods"))
	require.Equal(t, 200, do("cm-only", "/api/v1/configmaps"))
	require.Equal(t, 200, do("cm-only", "/api"))
	require.Equal(t, 200, do("reader", "/api/v1/pods"))
	req, err := http.NewRequest("DELETE", srv.URL()+"/api/v1/namespaces/default/pods/x", nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer reader")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, 403, resp.StatusCode, "a read-only token cannot delete")

	proto := "base64url.bearer.authorization.k8s.io." + base64.RawURLEncoding.EncodeToString([]byte("admin"))
	d := websocket.Dialer{Subprotocols: []string{"base64.binary.k8s.io", proto}}
	conn, resp, err := d.Dial("ws"+strings.TrimPrefix(srv.URL(), "http")+"/api/v1/pods?watch=1&timeoutSeconds=1",
		http.Header{"Origin": {srv.URL()}})
	require.NoError(t, err)
	require.Equal(t, "base64.binary.k8s.io", resp.Header.Get("Sec-WebSocket-Protocol"))
	conn.Close()
	require.Equal(t, cfgToken(srv), "admin")
}

func cfgToken(srv *fakeapiserver.Server) string {
	return fakeapiservertest.ClientConfig(srv).BearerToken
}

func TestInterceptAnswersForTheServer(t *testing.T) {
	var seen []string
	srv := fakeapiservertest.Start(t, fakeapiserver.Options{Logger: quiet(), Intercept: func(r *http.Request, verb string) error {
		seen = append(seen, verb)
		if verb == "create" {
			return meta.NewStatusError(429, meta.ReasonTooManyRequests, "slow down")
		}
		return nil
	}})
	code, _ := call(t, "POST", srv.URL()+"/api/v1/namespaces/default/configmaps", "application/json", `{"metadata":{"name":"c"}}`)
	require.Equal(t, 429, code)
	code, _ = get(t, srv.URL()+"/api/v1/configmaps")
	require.Equal(t, 200, code)
	require.Equal(t, []string{"create", "list"}, seen)
}

// TestStoredRunsBetweenTheWriteAndItsAnswer: the Stored hook sees every
// write that took effect (not a dry run) before its answer; a client
// cancelled there gets no answer, yet the write is stored, the race a
// cancelled renewal makes for leader election's release.
func TestStoredRunsBetweenTheWriteAndItsAnswer(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var seen []string // verb and name: checked on the test's goroutine, not the handler's
	srv := fakeapiservertest.Start(t, fakeapiserver.Options{Logger: quiet(), Stored: func(r *http.Request, verb string, obj []byte) {
		var o struct {
			Metadata struct {
				Name string `json:"name"`
			} `json:"metadata"`
		}
		_ = json.Unmarshal(obj, &o)
		seen = append(seen, verb+" "+o.Metadata.Name)
		if verb == "update" {
			cancel()
			<-r.Context().Done() // the client has gone: no answer will reach it
		}
	}})
	u := srv.URL() + "/api/v1/namespaces/default/configmaps"
	code, _ := call(t, "POST", u, "application/json", `{"metadata":{"name":"c"},"data":{"k":"1"}}`)
	require.Equal(t, 201, code)
	code, _ = call(t, "POST", u+"?dryRun=All", "application/json", `{"metadata":{"name":"d"}}`)
	require.Equal(t, 201, code)
	req, err := http.NewRequestWithContext(ctx, "PUT", u+"/c", strings.NewReader(`{"metadata":{"name":"c"},"data":{"k":"2"}}`))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+cfgToken(srv))
	_, err = http.DefaultClient.Do(req)
	require.ErrorIs(t, err, context.Canceled, "the client never got its answer")
	o, err := srv.Get(meta.GVR{Version: "v1", Resource: "configmaps"}, "default", "c")
	require.NoError(t, err)
	require.Contains(t, string(o.Bytes()), `"k":"2"`, "yet the update was stored")
	require.Equal(t, []string{"create c", "update c"}, seen, "a dry run is not stored")
}
