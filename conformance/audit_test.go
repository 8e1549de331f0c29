package conformance

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/apiclient"
	"github.com/zerokube/zerokube/informer"
	"github.com/zerokube/zerokube/informer/observe"
	"github.com/zerokube/zerokube/meta"
	"github.com/zerokube/zerokube/watchstream"
)

// The cache audit (informer.Options.Audit) on both servers: an exact
// metadata list at the cache's resourceVersion agrees with a cache in
// step, and finds the object whose event a man in the middle swallowed.

// swallower stands between the informer and the server, as a proxy would:
// once armed, it swallows the next object event of the watch, which the
// informer never learns of. The audit's own list does not pass through it.
type swallower struct {
	informer.ListerWatcher[*configMap]
	armed atomic.Bool
}

func (s *swallower) Watch(ctx context.Context, o informer.WatchRequest) (informer.Watch[*configMap], error) {
	w, err := s.ListerWatcher.Watch(ctx, o)
	if err != nil {
		return nil, err
	}
	return swallowWatch{w, s}, nil
}

type swallowWatch struct {
	informer.Watch[*configMap]
	s *swallower
}

func (w swallowWatch) Next() (watchstream.Event[*configMap], error) {
	for {
		ev, err := w.Watch.Next()
		if err == nil && ev.Type != meta.Bookmark && w.s.armed.CompareAndSwap(true, false) {
			continue
		}
		return ev, err
	}
}

// awaitTraced waits for an event r's informer traced that ok accepts,
// and returns it.
func awaitTraced(t *testing.T, r *run, ok func(observe.Event) bool) observe.Event {
	t.Helper()
	var got observe.Event
	require.Eventually(t, func() bool {
		r.mu.Lock()
		defer r.mu.Unlock()
		i := slices.IndexFunc(r.stages, ok)
		if i >= 0 {
			got = r.stages[i]
		}
		return i >= 0
	}, 60*time.Second, 5*time.Millisecond, "nothing such traced")
	return got
}

// A man in the middle swallows one event: a ListerWatcher of the
// informer's (the audit's own list passes beside it), or an HTTP proxy
// between the client and the server (everything passes through it; it
// swallows a frame of the watch stream, protobuf or JSON).
func TestInformerAuditFindsASwallowedEvent(t *testing.T) {
	for _, mitm := range []string{"listerwatcher", "proxy-protobuf", "proxy-json"} {
		for _, repair := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/repair=%v", mitm, repair), func(t *testing.T) {
				onBoth(t, func(t *testing.T, tg *target) { auditSwallowed(t, tg, mitm, repair) })
			})
		}
	}
}

func auditSwallowed(t *testing.T, tg *target, mitm string, repair bool) {
	ns := tg.namespace(t)
	want := seed(t, tg, ns, 5)
	opts := informer.Options[*configMap]{Audit: informer.AuditOptions{Period: 200 * time.Millisecond, Repair: repair, PageSize: 2}}
	var arm func()
	var wrap func(informer.ListerWatcher[*configMap]) informer.ListerWatcher[*configMap]
	via := tg
	switch mitm {
	case "listerwatcher":
		sw := &swallower{}
		arm = func() { sw.armed.Store(true) }
		wrap = func(lw informer.ListerWatcher[*configMap]) informer.ListerWatcher[*configMap] {
			sw.ListerWatcher = lw
			return sw
		}
	default:
		px := newSwallowProxy(t, tg)
		arm, via = func() { px.armed.Store(true) }, px.target(tg)
		opts.Transport.JSON = mitm == "proxy-json"
	}
	r := startInformer(t, via, ns, opts, wrap)
	ev := awaitTraced(t, r, func(ev observe.Event) bool { return ev.Stage == observe.StageAudited })
	require.NoError(t, ev.Err, "an exact list at the cache's resourceVersion agrees with it")
	require.Equal(t, 5, ev.Items)

	arm()
	p := "/api/v1/namespaces/" + ns + "/configmaps"
	tg.must(t, 201, "POST", p, obj(`{"metadata":{"name":"lost"},"data":{"k":"v0"}}`))
	tg.must(t, 201, "POST", p, obj(`{"metadata":{"name":"seen"},"data":{"k":"v0"}}`))
	want["lost"], want["seen"] = "v0", "v0"
	ev = awaitTraced(t, r, func(ev observe.Event) bool {
		return ev.Stage == observe.StageAuditDifference && ev.Key == ns+"/lost"
	})
	require.Equal(t, observe.OpMissing, ev.Op)
	var d *informer.AuditDifference
	awaitTraced(t, r, func(ev observe.Event) bool { return errors.As(ev.Err, &d) })
	require.Equal(t, 1, d.Missing)
	if !repair {
		require.True(t, r.inf.Health().Diverged)
		require.NotContains(t, r.cached(), "lost")
		return
	}
	r.awaitCache(t, want)
	require.Eventually(t, func() bool { return !r.inf.Health().Diverged }, 30*time.Second, 5*time.Millisecond)
}

// swallowProxy is an HTTP proxy in front of a server that, once armed,
// swallows the next object event (not a bookmark) of the watch streams
// passing through it: the frame is never written to the client.
type swallowProxy struct {
	armed atomic.Bool
	srv   *httptest.Server
}

func newSwallowProxy(t *testing.T, tg *target) *swallowProxy {
	u, err := url.Parse(tg.url)
	require.NoError(t, err)
	p := &swallowProxy{}
	tr := tlsTransport(tg.cfg.TLS.CAData) // no gzip: the proxy reads the frames
	t.Cleanup(tr.CloseIdleConnections)
	rp := httputil.NewSingleHostReverseProxy(u)
	rp.Transport, rp.FlushInterval = tr, -1
	rp.ModifyResponse = func(resp *http.Response) error {
		q := resp.Request.URL.Query()
		if resp.StatusCode == 200 && (q.Get("watch") == "1" || q.Get("watch") == "true") {
			proto := strings.Contains(resp.Header.Get("Content-Type"), "protobuf")
			resp.Body = &swallowBody{up: resp.Body, r: bufio.NewReader(resp.Body), proto: proto, p: p}
		}
		return nil
	}
	p.srv = httptest.NewServer(rp)
	t.Cleanup(p.srv.Close)
	return p
}

// target is tg reached through the proxy, over plain HTTP on loopback.
func (p *swallowProxy) target(tg *target) *target {
	cfg := *tg.cfg
	cfg.Host, cfg.TLS = p.srv.URL, apiclient.TLSConfig{}
	via := *tg
	via.url, via.cfg = p.srv.URL, &cfg
	return &via
}

// swallowBody passes a watch stream on frame by frame: JSON lines, or
// protobuf frames (a 4-byte big-endian length, then a WatchEvent whose
// field 1 is the type).
type swallowBody struct {
	up    io.ReadCloser
	r     *bufio.Reader
	proto bool
	p     *swallowProxy
	rest  []byte // of the frame being passed on
}

func (b *swallowBody) Read(out []byte) (int, error) {
	for len(b.rest) == 0 {
		frame, err := b.frame()
		if err != nil {
			return 0, err
		}
		head := frame[:min(len(frame), 32)]
		if !bytes.Contains(head, []byte("BOOKMARK")) && b.p.armed.CompareAndSwap(true, false) {
			continue
		}
		b.rest = frame
	}
	n := copy(out, b.rest)
	b.rest = b.rest[n:]
	return n, nil
}

func (b *swallowBody) frame() ([]byte, error) {
	if !b.proto {
		return b.r.ReadBytes('\n')
	}
	frame := make([]byte, 4)
	if _, err := io.ReadFull(b.r, frame); err != nil {
		return nil, err
	}
	frame = append(frame, make([]byte, binary.BigEndian.Uint32(frame))...)
	_, err := io.ReadFull(b.r, frame[4:])
	return frame, err
}

func (b *swallowBody) Close() error { return b.up.Close() }
