package apiclient_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/apiclient"
	"github.com/zerokube/zerokube/apiclient/websocket"
	"github.com/zerokube/zerokube/clock/clocktest"
	"github.com/zerokube/zerokube/meta"
	"github.com/zerokube/zerokube/watchstream"
)

// These tests play a server that is broken or hostile. Each must end in a
// clear error or a safe result, with bounded memory, and never a hang or a
// panic.

func TestListAllStopsWhenContinueTokensLoop(t *testing.T) {
	for name, tokens := range map[string][]string{
		"the same token forever": {"a"},
		"a cycle of three":       {"a", "b", "c"},
	} {
		t.Run(name, func(t *testing.T) {
			var calls atomic.Int32
			c, _ := newServer(t, func(w http.ResponseWriter, r *http.Request) {
				n := calls.Add(1)
				tok := tokens[int(n-1)%len(tokens)]
				fmt.Fprintf(w, `{"metadata":{"resourceVersion":"5","continue":%q},"items":[{"metadata":{"name":"p%d"}}]}`, tok, n)
			})
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			items := 0
			_, err := apiclient.ListAll[pod](ctx, c, podsRef, apiclient.ListOptions{Limit: 1}, nil,
				func(*pod) error { items++; return nil })
			require.ErrorIs(t, err, apiclient.ErrContinueLoop)
			require.NoError(t, ctx.Err(), "ListAll ran until the deadline instead of seeing the loop")
			require.Equal(t, len(tokens)+1, items, "one page per distinct token, plus the page that repeats one")
			require.Contains(t, err.Error(), "v1/pods")
		})
	}
}

func TestListAllIgnoresALyingRemainingItemCount(t *testing.T) {
	for _, count := range []string{"-5", "0", "9223372036854775807", "3"} {
		t.Run(count, func(t *testing.T) {
			var calls atomic.Int32
			c, _ := newServer(t, func(w http.ResponseWriter, r *http.Request) {
				if calls.Add(1) == 1 {
					fmt.Fprintf(w, `{"metadata":{"resourceVersion":"5","continue":"x","remainingItemCount":%s},"items":[{"metadata":{"name":"a"}}]}`, count)
					return
				}
				_, _ = w.Write([]byte(`{"metadata":{"resourceVersion":"5"},"items":[{"metadata":{"name":"b"}}]}`))
			})
			var names []string
			lm, err := apiclient.ListAll[pod](context.Background(), c, podsRef, apiclient.ListOptions{Limit: 1}, nil,
				func(p *pod) error { names = append(names, p.Name); return nil })
			require.NoError(t, err)
			require.Equal(t, []string{"a", "b"}, names, "the items are what the pages held, whatever the count said")
			require.Equal(t, "5", lm.ResourceVersion)
		})
	}
	c, _ := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(`{"metadata":{"remainingItemCount":99999999999999999999},"items":[]}`))
	})
	_, err := apiclient.List[pod](context.Background(), c, podsRef, apiclient.ListOptions{}, func(*pod) error { return nil })
	require.ErrorContains(t, err, "remainingItemCount", "a count that overflows int64 is an error naming the field")
}

func TestListPassesOnObjectsWithoutNameOrResourceVersion(t *testing.T) {
	// The client decodes what the server sent; deciding what to do with an
	// object that has no identity is the informer's job.
	c, _ := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(`{"metadata":{"resourceVersion":"5"},"items":[{},{"metadata":{}},{"metadata":{"name":"a"}},{"metadata":{"resourceVersion":"3"}}]}`))
	})
	var got []string
	_, err := apiclient.List[pod](context.Background(), c, podsRef, apiclient.ListOptions{}, func(p *pod) error {
		got = append(got, p.Name+"@"+p.ResourceVersion)
		return nil
	})
	require.NoError(t, err)
	require.Equal(t, []string{"@", "@", "a@", "@3"}, got)
}

// endlessList writes a list whose items never end, for as long as the
// client reads.
func endlessList(w http.ResponseWriter, r *http.Request) {
	_, _ = w.Write([]byte(`{"kind":"PodList","metadata":{"resourceVersion":"1"},"items":[`))
	item := []byte(`{"metadata":{"name":"p","namespace":"default","resourceVersion":"1"}},`)
	for r.Context().Err() == nil {
		if _, err := w.Write(item); err != nil {
			return
		}
	}
}

func TestListStreamsItemsOfABodyThatNeverEnds(t *testing.T) {
	c, _ := newServer(t, endlessList)
	enough := errors.New("enough")
	n := 0
	_, err := apiclient.List[pod](context.Background(), c, podsRef, apiclient.ListOptions{}, func(*pod) error {
		if n++; n == 20_000 {
			return enough
		}
		return nil
	})
	require.ErrorIs(t, err, enough, "items arrive while the body is still being written, and the callback can stop it")
}

func TestListOfABodyThatNeverEndsIsBoundedByTheTimeout(t *testing.T) {
	srv := newRawServer(t, endlessList)
	c, _ := newClient(t, &apiclient.Config{Host: srv, QPS: -1, Timeout: 300 * time.Millisecond})
	start := time.Now()
	_, err := apiclient.List[pod](context.Background(), c, podsRef, apiclient.ListOptions{}, func(*pod) error { return nil })
	require.ErrorIs(t, err, context.DeadlineExceeded)
	require.Less(t, time.Since(start), 10*time.Second)
}

// newRawServer serves h on a fresh loopback server; unlike newServer it
// leaves the client to the test.
func newRawServer(t *testing.T, h http.HandlerFunc) string {
	t.Helper()
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return "http://" + ln.Addr().String()
}

func TestAnEndlessErrorBodyIsCutShort(t *testing.T) {
	c, _ := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusBadRequest) // not retried: one endless body is enough
		chunk := []byte(strings.Repeat("<p>bad gateway</p>\n", 1000))
		for r.Context().Err() == nil {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	})
	_, err := apiclient.Get[pod](context.Background(), c, podsRef, "x")
	require.Equal(t, int32(400), meta.Code(err), "%v", err)
	require.Less(t, len(err.Error()), 2000, "only an excerpt of the body goes into the error")
}

// silentServer accepts connections and never answers, like a peer behind a
// black-holing firewall or a stuck proxy. It holds the connections until
// the test ends.
func silentServer(t *testing.T, headersThen string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	done := make(chan struct{})
	go func() {
		var conns []net.Conn
		defer func() {
			for _, c := range conns {
				_ = c.Close()
			}
			close(done)
		}()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conns = append(conns, c)
			if headersThen != "" {
				go func() {
					buf := make([]byte, 4096)
					_, _ = c.Read(buf) // the request; then the start of a reply, and silence
					_, _ = c.Write([]byte(headersThen))
				}()
			}
		}
	}()
	t.Cleanup(func() { _ = ln.Close(); <-done })
	return "http://" + ln.Addr().String()
}

func TestAServerThatNeverAnswersIsBoundedByTheContext(t *testing.T) {
	stalledBody := "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n" +
		"20\r\n{\"items\":[{\"metadata\":{\"name\":\r\n"
	for name, host := range map[string]string{
		"no reply at all":            silentServer(t, ""),
		"headers, then half an item": silentServer(t, stalledBody),
	} {
		for _, verb := range []string{"list", "get", "watch", "websocket watch"} {
			t.Run(name+"/"+verb, func(t *testing.T) {
				c, _ := newClient(t, &apiclient.Config{Host: host, QPS: -1})
				ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
				defer cancel()
				start := time.Now()
				err := callVerb(ctx, c, verb)
				require.Error(t, err)
				if !strings.Contains(verb, "watch") || name == "no reply at all" {
					require.ErrorIs(t, err, context.DeadlineExceeded)
				}
				require.Less(t, time.Since(start), 5*time.Second)
			})
		}
	}
}

// callVerb runs one call of verb; a watch is read until its first event.
func callVerb(ctx context.Context, c *apiclient.Client, verb string) error {
	switch verb {
	case "list":
		_, err := apiclient.List[pod](ctx, c, podsRef, apiclient.ListOptions{}, func(*pod) error { return nil })
		return err
	case "get":
		_, err := apiclient.Get[pod](ctx, c, podsRef, "x")
		return err
	}
	s, err := apiclient.Watch[pod](ctx, c, podsRef, apiclient.WatchOptions{Websocket: wsDialer(verb == "websocket watch")})
	if err != nil {
		return err
	}
	defer s.Stop()
	_, err = s.Next()
	return err
}

func TestCancellingAWebsocketWatchAbortsAHandshakeTheServerNeverAnswers(t *testing.T) {
	// A server that accepts the connection and reads the upgrade request,
	// but never answers it: only cancellation can end the dial.
	host, asked := handshakeSink(t)
	c, _ := newClient(t, &apiclient.Config{Host: host, QPS: -1})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := apiclient.Watch[pod](ctx, c, podsRef, apiclient.WatchOptions{Websocket: websocket.Dialer{}})
		done <- err
	}()
	select { // the dial has sent its upgrade request and waits for the reply
	case <-asked:
	case <-time.After(5 * time.Second):
		t.Fatal("no upgrade request reached the server")
	}
	cancel()
	select {
	case err := <-done:
		require.ErrorIs(t, err, context.Canceled)
	case <-time.After(5 * time.Second):
		t.Fatal("a cancelled websocket dial waited for the handshake timeout")
	}
}

// handshakeSink is a server that reads one request's headers, closes asked,
// and never answers; the connection stays open until the test ends.
func handshakeSink(t *testing.T) (host string, asked <-chan struct{}) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	ch, stop, done := make(chan struct{}), make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		c, err := ln.Accept()
		if err != nil {
			return
		}
		go func() { <-stop; _ = c.Close() }()
		r := bufio.NewReader(c)
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				return
			}
			if line == "\r\n" {
				break
			}
		}
		close(ch)
		<-stop
	}()
	t.Cleanup(func() { close(stop); _ = ln.Close(); <-done })
	return "http://" + ln.Addr().String(), ch
}

// hugeValue writes prefix, then n bytes of 'x', then suffix, or stops when
// the client goes away.
func hugeValue(w http.ResponseWriter, prefix string, n int, suffix string) {
	_, _ = w.Write([]byte(prefix))
	chunk := []byte(strings.Repeat("x", 64<<10))
	for written := 0; written < n; written += len(chunk) {
		if _, err := w.Write(chunk); err != nil {
			return
		}
	}
	_, _ = w.Write([]byte(suffix))
}

func TestOversizedObjectsAreRefusedWithBoundedMemory(t *testing.T) {
	if raceEnabled {
		t.Skip("decodes 16 MiB values: slow under the race detector, and not about concurrency")
	}
	const over = 1 << 40 // never ends: the server writes until the client leaves
	for name, tc := range map[string]struct {
		verb   string
		handle http.HandlerFunc
		items  int // items delivered before the error
	}{
		"a list item": {"list", func(w http.ResponseWriter, r *http.Request) {
			hugeValue(w, `{"metadata":{"resourceVersion":"1"},"items":[{"metadata":{"name":"ok"}},{"metadata":{"name":"`, over, `"}}]}`)
		}, 1},
		"an unknown member of the list": {"list", func(w http.ResponseWriter, r *http.Request) {
			hugeValue(w, `{"metadata":{"resourceVersion":"1"},"padding":"`, over, `","items":[]}`)
		}, 0},
		"whitespace between items": {"list", func(w http.ResponseWriter, r *http.Request) {
			_, _ = w.Write([]byte(`{"items":[{"metadata":{"name":"ok"}},`))
			chunk := []byte(strings.Repeat(" ", 64<<10))
			for r.Context().Err() == nil {
				if _, err := w.Write(chunk); err != nil {
					return
				}
			}
		}, 1},
		"a GET reply": {"get", func(w http.ResponseWriter, r *http.Request) {
			hugeValue(w, `{"metadata":{"name":"`, over, `"}}`)
		}, 0},
	} {
		t.Run(name, func(t *testing.T) {
			c, _ := newServer(t, tc.handle)
			items := 0
			var err error
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			if tc.verb == "get" {
				_, err = apiclient.Get[pod](context.Background(), c, podsRef, "x")
			} else {
				_, err = apiclient.List[pod](context.Background(), c, podsRef, apiclient.ListOptions{},
					func(*pod) error { items++; return nil })
			}
			runtime.ReadMemStats(&after)
			require.ErrorIs(t, err, watchstream.ErrTooLarge)
			require.Equal(t, tc.items, items, "the objects before the big one are delivered")
			require.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(8*apiclient.MaxObjectSize),
				"the client allocates a few times the cap (buffers double), not the endless object")
		})
	}
}

func TestAWatchTheServerNeverAnswersTimesOutAtOpen(t *testing.T) {
	host := silentServer(t, "")
	t.Run("chunked: on the client's clock", func(t *testing.T) {
		c, clk := newClient(t, &apiclient.Config{Host: host, QPS: -1})
		done := make(chan error, 1)
		go func() {
			_, err := apiclient.Watch[pod](context.Background(), c, podsRef, apiclient.WatchOptions{OpenTimeout: time.Minute})
			done <- err
		}()
		require.NoError(t, clk.AwaitTimers(t.Context(), 1), "the open timeout is armed")
		clk.Advance(time.Minute)
		err := <-done
		require.ErrorIs(t, err, apiclient.ErrWatchOpenTimeout)
		require.ErrorIs(t, err, context.DeadlineExceeded)
	})
	t.Run("websocket: the dialer's handshake timeout, on the real clock", func(t *testing.T) {
		c, err := apiclient.NewWithOptions(&apiclient.Config{Host: host, QPS: -1}, apiclient.Options{})
		require.NoError(t, err)
		t.Cleanup(c.CloseIdleConnections)
		start := time.Now()
		_, err = apiclient.Watch[pod](context.Background(), c, podsRef,
			apiclient.WatchOptions{Websocket: websocket.Dialer{}, OpenTimeout: 100 * time.Millisecond})
		require.ErrorIs(t, err, apiclient.ErrWatchOpenTimeout)
		require.ErrorIs(t, err, context.DeadlineExceeded)
		require.Less(t, time.Since(start), 5*time.Second)
	})
}

func TestTheOpenTimeoutDoesNotLimitAnOpenWatch(t *testing.T) {
	send := make(chan struct{})
	c, clk := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(200)
		w.(http.Flusher).Flush()
		select {
		case <-send: // the first event comes well after the open timeout
		case <-r.Context().Done():
			return
		}
		_, _ = w.Write([]byte(`{"type":"ADDED","object":{"metadata":{"name":"late"}}}` + "\n"))
	})
	s, err := apiclient.Watch[pod](context.Background(), c, podsRef, apiclient.WatchOptions{OpenTimeout: time.Second})
	require.NoError(t, err)
	defer s.Stop()
	require.Zero(t, clk.Pending(), "the answer stopped the open timeout")
	clk.Advance(time.Hour)
	close(send)
	ev, err := s.Next()
	require.NoError(t, err)
	require.Equal(t, "late", ev.Object.Name)
}

func TestAReplyWhoseHeadersNeverComeIsBoundedByTheHeaderTimeout(t *testing.T) {
	// No context deadline and no Config.Timeout: only the header timeout
	// can end these calls, each retried read included.
	host := silentServer(t, "")
	s := instantClock()
	c, err := apiclient.NewWithOptions(&apiclient.Config{Host: host, QPS: -1}, apiclient.Options{
		HeaderTimeout: 100 * time.Millisecond, // the transport's, on the real clock
		Retry:         apiclient.RetryOptions{MaxAttempts: 2},
		Clock:         s,
	})
	require.NoError(t, err)
	t.Cleanup(c.CloseIdleConnections)
	for _, verb := range []string{"list", "get"} {
		start := time.Now()
		err := callVerb(context.Background(), c, verb)
		var ne net.Error
		require.ErrorAs(t, err, &ne, "%s: %v", verb, err)
		require.True(t, ne.Timeout(), "%s: %v", verb, err)
		require.Less(t, time.Since(start), 5*time.Second)
	}
	require.Len(t, s.Delays(), 2, "a read whose reply never came is retried, once per call here")
}

// A LIST body that stops after its headers is the reply's reader's to
// bound (watchstream's progress watchdog, ListOptions.Decode.StallTimeout),
// not the client's: it ends as Problem Stalled, the same as a watch that
// stops, whatever the client's HeaderTimeout (which bounds headers only).
func TestAListBodyThatStallsEndsAsStalled(t *testing.T) {
	host := silentServer(t, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"+
		"20\r\n{\"items\":[{\"metadata\":{\"name\":\r\n")
	clk := clocktest.New()
	c, err := apiclient.NewWithOptions(&apiclient.Config{Host: host, QPS: -1}, apiclient.Options{
		HeaderTimeout: 10 * time.Second, Retry: apiclient.RetryOptions{MaxAttempts: 1}, Clock: clk})
	require.NoError(t, err)
	t.Cleanup(c.CloseIdleConnections)
	done := make(chan error, 1)
	go func() {
		_, err := apiclient.List[pod](context.Background(), c, podsRef,
			apiclient.ListOptions{Decode: watchstream.Options{StallTimeout: 30 * time.Second}}, func(*pod) error { return nil })
		done <- err
	}()
	require.NoError(t, clk.AwaitTimers(t.Context(), 1), "the stall watchdog is armed")
	clk.Advance(watchstream.ServerListTimeout + 5*time.Second) // the first item's bound
	err = <-done
	require.Equal(t, watchstream.Stalled, watchstream.ProblemOf(err), "%v", err)
	require.Equal(t, 1, strings.Count(err.Error(), "stalled"), "said once: %v", err)
}

func TestASlowButSteadyListIsNotCutByTheHeaderTimeout(t *testing.T) {
	const idle = time.Minute
	next := make(chan struct{}, 10) // the test lets the server send each item after the first
	host := newRawServer(t, func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(`{"metadata":{"resourceVersion":"1"},"items":[`))
		for i := range 10 {
			if i > 0 {
				select {
				case <-next:
				case <-r.Context().Done():
					return
				}
				_, _ = w.Write([]byte(","))
			}
			fmt.Fprintf(w, `{"metadata":{"name":"p%d"}}`, i)
			w.(http.Flusher).Flush()
		}
		_, _ = w.Write([]byte(`]}`))
	})
	clk := clocktest.New()
	c, err := apiclient.NewWithOptions(&apiclient.Config{Host: host, QPS: -1}, apiclient.Options{HeaderTimeout: idle, Clock: clk})
	require.NoError(t, err)
	t.Cleanup(c.CloseIdleConnections)
	n := 0
	_, err = apiclient.List[pod](context.Background(), c, podsRef, apiclient.ListOptions{}, func(*pod) error {
		// The item's bytes were read, so the watchdog restarted: each gap
		// stays under the timeout while the whole list runs ten times over it.
		n++
		clk.Advance(idle - time.Millisecond)
		next <- struct{}{}
		return nil
	})
	require.NoError(t, err)
	require.Equal(t, 10, n)
	require.Equal(t, clocktest.Start.Add(10*(idle-time.Millisecond)), clk.Now())
}

// wsDialer is websocket.Dialer{} when ws, else nil: chunked HTTP.
func wsDialer(ws bool) apiclient.WebsocketDialer {
	if ws {
		return websocket.Dialer{}
	}
	return nil
}
