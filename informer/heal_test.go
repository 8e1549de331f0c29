package informer_test

import (
	"io"
	"net"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/apiclient"
	"github.com/zerokube/zerokube/clock/clocktest"
	"github.com/zerokube/zerokube/fakeapiserver/fakeapiservertest"
	"github.com/zerokube/zerokube/informer"
)

// cutProxy forwards TCP to target; while down it closes every connection,
// open or new: the server is out of reach (a partition, a restart behind a
// load balancer), not answering.
type cutProxy struct {
	ln     net.Listener
	target string
	down   atomic.Bool
	mu     sync.Mutex
	conns  map[net.Conn]struct{}
}

func newCutProxy(t *testing.T, target string) *cutProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	p := &cutProxy{ln: ln, target: target, conns: map[net.Conn]struct{}{}}
	go p.serve()
	t.Cleanup(func() { _ = ln.Close(); p.cut() })
	return p
}

func (p *cutProxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		if p.down.Load() {
			_ = c.Close()
			continue
		}
		s, err := net.Dial("tcp", p.target)
		if err != nil {
			_ = c.Close()
			continue
		}
		p.mu.Lock()
		p.conns[c], p.conns[s] = struct{}{}, struct{}{}
		p.mu.Unlock()
		go func() { _, _ = io.Copy(s, c); _ = s.Close() }()
		go func() { _, _ = io.Copy(c, s); _ = c.Close() }()
	}
}

// cut closes every connection through the proxy.
func (p *cutProxy) cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for c := range p.conns {
		_ = c.Close()
	}
	clear(p.conns)
}

// Recovery after a heal is prompt: through a partition long enough for
// the backoff to reach its top, the informer asks once a second whether
// the server answers again, and is back in step within about a second of
// the heal instead of waiting out a backoff grown while the server was
// away (it waited 10-20 s, and up to 51 s past a 30 s cap, before). Time
// is the fake clock's, in instant mode: every wait is recorded and none is
// slept, so the time from the heal to a matching cache is the sum of the
// waits begun after it.
func TestAfterAPartitionTheCacheMatchesWithinTwoSecondsOfTheHeal(t *testing.T) {
	for _, streaming := range []bool{false, true} {
		t.Run(map[bool]string{false: "LIST", true: "streaming list"}[streaming], func(t *testing.T) {
			e := newEnv(t)
			e.put(t, "a", "0", nil)
			u, err := url.Parse(e.srv.URL())
			require.NoError(t, err)
			proxy := newCutProxy(t, u.Host)
			cfg := fakeapiservertest.ClientConfig(e.srv)
			cfg.Host = u.Scheme + "://" + proxy.ln.Addr().String()
			c, err := apiclient.NewWithOptions(cfg, apiclient.Options{})
			require.NoError(t, err)
			t.Cleanup(c.CloseIdleConnections)
			clk := clocktest.New()
			clk.SetInstant(true)
			log := &backoffLog{}
			inf := informer.New[configMap](c, cmRef, informer.Options[*configMap]{Logger: quiet(), Clock: clk,
				Rand: func() float64 { return 0 }, StreamingList: streaming, Trace: log.trace})
			run(t, inf)
			synced(t, inf)

			proxy.down.Store(true)
			proxy.cut()
			require.Eventually(t, func() bool { return log.len() >= 7 }, wait, time.Millisecond,
				"seven failures during the partition: the backoff reaches its top")
			e.put(t, "a", "1", nil)
			e.put(t, "b", "1", nil)
			mark := len(clk.Delays())
			proxy.down.Store(false)
			converges(t, e, inf)
			var waited time.Duration
			for _, d := range clk.Delays()[mark:] {
				waited += d
			}
			require.LessOrEqual(t, waited, 2*time.Second, "from the heal to a matching cache, on the fake clock")
		})
	}
}
