package conformance

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/apiclient"
	"github.com/zerokube/zerokube/informer"
	"github.com/zerokube/zerokube/kubeproto"
	"github.com/zerokube/zerokube/meta"
)

// The informer picks the wire per resource (informer/wire.go): protobuf
// for the built-in kinds, JSON for custom resources. These tests run it on
// both servers and look at what travelled.

// wireLog records, for every request a client sent, its Accept header and
// the media type of the reply, keyed "list" or "watch".
type wireLog struct {
	rt   http.RoundTripper
	mu   sync.Mutex
	seen map[string][]string // guarded by mu
}

func (w *wireLog) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := w.rt.RoundTrip(r)
	if err == nil {
		verb := "list"
		if r.URL.Query().Has("watch") {
			verb = "watch"
		}
		w.mu.Lock()
		w.seen[verb] = append(w.seen[verb], r.Header.Get("Accept")+" → "+resp.Header.Get("Content-Type"))
		w.mu.Unlock()
	}
	return resp, err
}

// replies lists the distinct "accept → content type" of verb.
func (w *wireLog) replies(verb string) []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	s := slices.Clone(w.seen[verb])
	sort.Strings(s)
	return slices.Compact(s)
}

// recordingClient is a client of tg whose requests are logged.
func recordingClient(t *testing.T, tg *target) (*apiclient.Client, *wireLog) {
	log := &wireLog{rt: tlsTransport(tg.cfg.TLS.CAData), seen: map[string][]string{}}
	c, err := apiclient.NewWithOptions(tg.cfg, apiclient.Options{Transport: log})
	require.NoError(t, err)
	t.Cleanup(c.CloseIdleConnections)
	return c, log
}

// slimPod is a user's slim pod type.
type slimPod struct {
	meta.TypeMeta
	meta.SlimMeta `json:"metadata"`
	Spec          struct {
		Containers []struct {
			Name  string `json:"name"`
			Image string `json:"image"`
		} `json:"containers"`
		RestartPolicy string `json:"restartPolicy"`
	} `json:"spec"`
	Status struct {
		Phase    string `json:"phase"`
		QOSClass string `json:"qosClass"`
	} `json:"status"`
}

// runInformer runs inf until the test ends, waits for its sync, and
// returns a channel that gets a value after its cache changed.
func runInformer[T any, P meta.PtrObject[T]](t *testing.T, inf *informer.Informer[T, P]) <-chan struct{} {
	t.Helper()
	changed := make(chan struct{}, 1)
	poke := func() {
		select {
		case changed <- struct{}{}:
		default: // one pending wake-up is enough
		}
	}
	_, err := inf.AddHandler(informer.HandlerFuncs[P]{AddFunc: func(P, bool) { poke() },
		UpdateFunc: func(_, _ P) { poke() }, DeleteFunc: func(P, bool) { poke() }}, informer.HandlerOptions{})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- inf.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	wctx, wcancel := context.WithTimeout(ctx, 60*time.Second)
	defer wcancel()
	require.NoError(t, inf.WaitForSync(wctx))
	return changed
}

// awaitKeys waits until the informer's cache holds exactly keys; changed
// is its runInformer channel.
func awaitKeys[T any, P meta.PtrObject[T]](t *testing.T, inf *informer.Informer[T, P], changed <-chan struct{}, keys ...string) {
	t.Helper()
	sort.Strings(keys)
	deadline := time.NewTimer(30 * time.Second)
	defer deadline.Stop()
	for {
		var got []string
		for _, o := range inf.Lister().List(meta.LabelSelector{}) {
			got = append(got, meta.Key(o))
		}
		sort.Strings(got)
		if slices.Equal(got, keys) {
			return
		}
		select {
		case <-changed: // handlers run after the cache is updated
		case <-deadline.C:
			require.Fail(t, "the cache did not converge", "got %v\nwant %v", got, keys)
		}
	}
}

// speaksProtobuf reports whether tg answers a LIST of pods in protobuf.
func speaksProtobuf(t *testing.T, tg *target) bool {
	r := tg.do(t, "GET", "/api/v1/pods?limit=1", "", "Accept", apiclient.AcceptProtobuf)
	return r.header.Get("Content-Type") == kubeproto.ContentType
}

func TestInformerSyncsAndWatchesPodsOverProtobuf(t *testing.T) {
	for _, mode := range []struct {
		name                 string
		streaming, websocket bool
	}{{"list", false, false}, {"streaming list", true, false}, {"websocket watch", false, true}} {
		streaming := mode.streaming
		t.Run(mode.name, func(t *testing.T) {
			onBoth(t, func(t *testing.T, tg *target) {
				ns := tg.namespace(t)
				var keys []string
				for i := range 5 {
					name := fmt.Sprintf("p-%d", i)
					tg.must(t, 201, "POST", "/api/v1/namespaces/"+ns+"/pods", podJSON(name))
					keys = append(keys, ns+"/"+name)
				}
				ref := apiclient.Ref{GVR: meta.GVR{Version: "v1", Resource: "pods"}, Namespace: ns}
				c, log := recordingClient(t, tg)
				pb := informer.New[slimPod](c, ref, informer.Options[*slimPod]{
					Transport: informer.Transport{Websocket: wsDialer(mode.websocket)},
					Sync:      informer.SyncOptions{StreamingList: streaming},
					Observe:   informer.ObserveOptions{Logger: quiet()},
				})
				pbChanged := runInformer(t, pb)
				// The same pods over JSON, for the structs to compare.
				jc, jlog := recordingClient(t, tg)
				js := informer.New[slimPod](jc, ref, informer.Options[*slimPod]{
					Transport: informer.Transport{JSON: true},
					Sync:      informer.SyncOptions{StreamingList: streaming},
					Observe:   informer.ObserveOptions{Logger: quiet()},
				})
				jsChanged := runInformer(t, js)
				awaitKeys(t, pb, pbChanged, keys...)

				// Watch: one pod more, one fewer.
				tg.must(t, 201, "POST", "/api/v1/namespaces/"+ns+"/pods", podJSON("late"))
				tg.must(t, 200, "DELETE", "/api/v1/namespaces/"+ns+"/pods/p-0?gracePeriodSeconds=0", "")
				keys = append(keys[1:], ns+"/late")
				awaitKeys(t, pb, pbChanged, keys...)
				awaitKeys(t, js, jsChanged, keys...)
				requireSameObjects(t, pb, js)
				require.Equal(t, "c", mustGet(t, pb, ns+"/late").Spec.Containers[0].Name)

				wantList, wantWatch := "list", "watch"
				if speaksProtobuf(t, tg) {
					wantList, wantWatch = kubeproto.ContentType, kubeproto.WatchContentType
				} else {
					t.Logf("%s does not serve protobuf yet: the informer fell back to JSON", tg.name)
					wantList, wantWatch = "application/json", "application/json"
				}
				if !streaming {
					require.Equal(t, []string{apiclient.AcceptProtobuf + " → " + wantList}, log.replies("list"))
				}
				if !mode.websocket { // a websocket's upgrade reply has no content type: binary messages say protobuf
					require.Equal(t, []string{apiclient.AcceptProtobuf + " → " + wantWatch}, log.replies("watch"))
				}
				require.NotContains(t, slices.Concat(jlog.replies("list"), jlog.replies("watch")), kubeproto.ContentType,
					"Transport.JSON asks for JSON only")
			})
		})
	}
}

// requireSameObjects compares two informers' caches object by object.
func requireSameObjects[T any, P meta.PtrObject[T]](t *testing.T, a, b *informer.Informer[T, P]) {
	t.Helper()
	byKey := func(inf *informer.Informer[T, P]) map[string]T {
		m := map[string]T{}
		for _, o := range inf.Lister().List(meta.LabelSelector{}) {
			m[meta.Key(o)] = *o
		}
		return m
	}
	ma, mb := byKey(a), byKey(b)
	require.Equal(t, slices.Sorted(maps.Keys(ma)), slices.Sorted(maps.Keys(mb)))
	for k, v := range ma {
		require.Equal(t, mb[k], v, "object %s decoded from protobuf and from JSON", k)
	}
}

func mustGet[T any, P meta.PtrObject[T]](t *testing.T, inf *informer.Informer[T, P], key string) P {
	t.Helper()
	ns, name := meta.SplitKey(key)
	o, ok := inf.Lister().Get(ns, name)
	require.True(t, ok, "no %s in the cache", key)
	return o
}

// widget is a custom resource: served in JSON only.
type widget struct {
	meta.TypeMeta
	meta.ObjectMeta `json:"metadata"`
	Spec            struct {
		Size int `json:"size"`
	} `json:"spec"`
}

func TestInformerWatchesACustomResourceOverJSON(t *testing.T) {
	onBoth(t, func(t *testing.T, tg *target) {
		ns := tg.namespace(t)
		list := "/apis/conformance.zerokube.dev/v1/namespaces/" + ns + "/widgets"
		tg.customResource(t, list)
		tg.must(t, 201, "POST", list, `{"apiVersion":"conformance.zerokube.dev/v1","kind":"Widget","metadata":{"name":"w1"},"spec":{"size":3}}`)
		ref := apiclient.Ref{GVR: meta.GVR{Group: "conformance.zerokube.dev", Version: "v1", Resource: "widgets"}, Namespace: ns}
		c, log := recordingClient(t, tg)
		inf := informer.New[widget](c, ref, informer.Options[*widget]{Observe: informer.ObserveOptions{Logger: quiet()}})
		changed := runInformer(t, inf)
		tg.must(t, 201, "POST", list, `{"apiVersion":"conformance.zerokube.dev/v1","kind":"Widget","metadata":{"name":"w2"},"spec":{"size":4}}`)
		awaitKeys(t, inf, changed, ns+"/w1", ns+"/w2")
		require.Equal(t, 4, mustGet(t, inf, ns+"/w2").Spec.Size)
		require.Equal(t, []string{"application/json → application/json"}, log.replies("list"))
		require.Equal(t, []string{"application/json → application/json"}, log.replies("watch"))
	})
}

func TestAProtobufWebsocketWatchSendsOneBareWatchEventPerBinaryMessage(t *testing.T) {
	onBoth(t, func(t *testing.T, tg *target) {
		if !speaksProtobuf(t, tg) {
			t.Skipf("%s does not serve protobuf yet", tg.name)
		}
		ns := tg.namespace(t)
		tg.must(t, 201, "POST", "/api/v1/namespaces/"+ns+"/pods", podJSON("p"))
		pool := x509.NewCertPool()
		pool.AppendCertsFromPEM(tg.cfg.TLS.CAData)
		d := websocket.Dialer{TLSClientConfig: &tls.Config{RootCAs: pool}, HandshakeTimeout: 10 * time.Second}
		h := http.Header{"Authorization": {"Bearer " + tg.token}, "Origin": {tg.url}, "Accept": {apiclient.AcceptProtobuf}}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		conn, resp, err := d.DialContext(ctx, "wss"+strings.TrimPrefix(tg.url, "https")+
			"/api/v1/namespaces/"+ns+"/pods?watch=1&resourceVersion=0&timeoutSeconds=5", h)
		require.NoError(t, err)
		_ = resp.Body.Close()
		defer conn.Close()
		mt, msg, err := conn.ReadMessage()
		require.NoError(t, err)
		require.Equal(t, websocket.BinaryMessage, mt)
		// No length prefix: the message is the WatchEvent itself.
		ev, err := kubeproto.DecodeWatchEvent(msg)
		require.NoError(t, err)
		require.Equal(t, "ADDED", ev.Type)
		env, err := kubeproto.DecodeEnvelope(ev.Object)
		require.NoError(t, err)
		require.Equal(t, "v1 Pod", env.APIVersion+" "+env.Kind)
	})
}
