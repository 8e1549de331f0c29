package informer

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/apiclient"
	"github.com/zerokube/zerokube/informer/observe"
	"github.com/zerokube/zerokube/kubeproto"
	"github.com/zerokube/zerokube/meta"
)

// acceptLog records the Accept header of each request a listServer got.
type acceptLog struct {
	mu      sync.Mutex
	accepts []string // guarded by mu
}

// listServer answers the n-th request with reply and returns a client of it.
func listServer(t *testing.T, log *acceptLog, reply func(w http.ResponseWriter, n int)) *apiclient.Client {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		log.mu.Lock()
		log.accepts = append(log.accepts, r.Header.Get("Accept"))
		n := len(log.accepts)
		log.mu.Unlock()
		reply(w, n)
	}))
	t.Cleanup(srv.Close)
	c, err := apiclient.New(&apiclient.Config{Host: srv.URL, QPS: -1})
	require.NoError(t, err)
	return c
}

func jsonList(w http.ResponseWriter, _ int) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write([]byte(`{"kind":"List","apiVersion":"v1","metadata":{"resourceVersion":"1"},"items":[]}`))
}

func TestEachResourceAsksForTheWireItsKindHas(t *testing.T) {
	for _, tc := range []struct {
		name string
		gvr  meta.GVR
		tr   Transport
		want string
	}{
		{"a built-in kind: protobuf, JSON as the fallback", meta.GVR{Version: "v1", Resource: "pods"}, Transport{}, apiclient.AcceptProtobuf},
		{"another built-in group", meta.GVR{Group: "apps", Version: "v1", Resource: "deployments"}, Transport{}, apiclient.AcceptProtobuf},
		{"a custom resource: JSON", meta.GVR{Group: "x.example.com", Version: "v1", Resource: "widgets"}, Transport{}, "application/json"},
		{"Transport.JSON: JSON", meta.GVR{Version: "v1", Resource: "pods"}, Transport{JSON: true}, "application/json"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			log := &acceptLog{}
			c := listServer(t, log, jsonList)
			lw := newResourceLW[pod](c, apiclient.Ref{GVR: tc.gvr}, Options[*pod]{Transport: tc.tr})
			_, err := lw.List(context.Background(), ListRequest{}, func(*pod) error { return nil })
			require.NoError(t, err)
			require.Equal(t, []string{tc.want}, log.accepts)
		})
	}
}

func TestAProtobufReplyOfAKindTheTableLacksTurnsTheResourceToJSON(t *testing.T) {
	log := &acceptLog{}
	c := listServer(t, log, func(w http.ResponseWriter, n int) {
		if n > 1 {
			jsonList(w, n)
			return
		}
		w.Header().Set("Content-Type", kubeproto.ContentType)
		_, _ = w.Write(kubeproto.AppendEnvelope(nil, kubeproto.Envelope{APIVersion: "v1", Kind: "PodFromTheFutureList", Raw: []byte{0x12, 0}}))
	})
	lw := newResourceLW[pod](c, apiclient.Ref{GVR: meta.GVR{Version: "v1", Resource: "pods"}}, Options[*pod]{})
	_, err := lw.List(context.Background(), ListRequest{}, func(*pod) error { return nil })
	require.ErrorIs(t, err, kubeproto.ErrUnknownKind)
	_, err = lw.List(context.Background(), ListRequest{}, func(*pod) error { return nil })
	require.NoError(t, err, "the retry asks for JSON")
	require.Equal(t, []string{apiclient.AcceptProtobuf, "application/json"}, log.accepts)
}

// An object of another apiVersion in a protobuf watch (a kind the table
// lacks) fails the watch with kubeproto.ErrUnknownKind; the informer then
// asks for JSON (rule 3), where the object is dropped and reported.
func TestAProtobufWatchObjectOfAnotherAPIVersionIsDropped(t *testing.T) {
	m, _ := kubeproto.MessageFor("v1", "Pod")
	obj := func(apiVersion, name, rv string) []byte {
		raw, err := kubeproto.AppendProto(nil, m, []byte(`{"metadata":{"name":"`+name+`","namespace":"ns","resourceVersion":"`+rv+`"}}`))
		require.NoError(t, err)
		env := kubeproto.AppendEnvelope(nil, kubeproto.Envelope{APIVersion: apiVersion, Kind: "Pod", Raw: raw})
		return kubeproto.AppendFrame(nil, kubeproto.AppendWatchEvent(nil, kubeproto.WatchEvent{Type: "ADDED", Object: env}))
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.Contains(r.Header.Get("Accept"), kubeproto.ContentType) {
			serveJSON(w, r)
			return
		}
		if r.URL.Query().Get("watch") == "" {
			w.Header().Set("Content-Type", kubeproto.ContentType)
			_, _ = w.Write(kubeproto.AppendEnvelope(nil, kubeproto.Envelope{APIVersion: "v1", Kind: "PodList",
				Raw: kubeproto.AppendListMeta(nil, kubeproto.ListMeta{ResourceVersion: "5"})}))
			return
		}
		w.Header().Set("Content-Type", kubeproto.WatchContentType)
		_, _ = w.Write(append(obj("v2", "odd", "6"), obj("v1", "good", "7")...))
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	t.Cleanup(srv.Close)
	c, err := apiclient.New(&apiclient.Config{Host: srv.URL, QPS: -1})
	require.NoError(t, err)
	skipped := make(chan observe.Event, 4)
	inf := New[pod](c, apiclient.Ref{GVR: meta.GVR{Version: "v1", Resource: "pods"}, Namespace: "ns"},
		Options[*pod]{
			Observe: ObserveOptions{
				Logger: quiet(),
				Trace: func(ev observe.Event) {
					if ev.Stage == observe.StageSkipped {
						skipped <- ev
					}
				},
			},
		})
	added := make(chan string, 4)
	_, err = inf.AddHandler(HandlerFuncs[*pod]{AddFunc: func(p *pod, _ bool) { added <- p.Name }}, HandlerOptions{})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- inf.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done; c.CloseIdleConnections() })
	select {
	case name := <-added:
		require.Equal(t, "good", name)
	case <-time.After(10 * time.Second):
		require.Fail(t, "the good object never arrived")
	}
	select {
	case ev := <-skipped:
		require.Equal(t, "ns/odd", ev.Key)
	case <-time.After(10 * time.Second):
		require.Fail(t, "the object of apiVersion v2 was not reported as skipped")
	}
	_, ok := inf.Lister().Get("ns", "odd")
	require.False(t, ok)
}

// serveJSON answers TestAProtobufWatchObjectOfAnotherAPIVersionIsDropped's
// requests that ask for JSON: an empty list, then a watch with the object
// of apiVersion v2 and a good one.
func serveJSON(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	if r.URL.Query().Get("watch") == "" {
		_, _ = w.Write([]byte(`{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"5"},"items":[]}`))
		return
	}
	for _, o := range []string{`"apiVersion":"v2","kind":"Pod","metadata":{"name":"odd","namespace":"ns","resourceVersion":"6"}`,
		`"apiVersion":"v1","kind":"Pod","metadata":{"name":"good","namespace":"ns","resourceVersion":"7"}`} {
		_, _ = w.Write([]byte(`{"type":"ADDED","object":{` + o + `}}` + "\n"))
	}
	w.(http.Flusher).Flush()
	<-r.Context().Done()
}
