package watchstream_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/clock/clocktest"
	"github.com/zerokube/zerokube/meta"
	"github.com/zerokube/zerokube/watchstream"
)

// prompt bounds how long a Stop or a cancel may take to unblock Next. It is
// a failure deadline, not a wait: the tests finish as soon as Next returns.
const prompt = 5 * time.Second

// nextAsync runs Next in a goroutine and hands back its result.
func nextAsync[T any, P meta.PtrObject[T]](s *watchstream.Stream[T, P]) <-chan error {
	done := make(chan error, 1)
	go func() {
		_, err := s.Next()
		done <- err
	}()
	return done
}

// next is Next with a deadline: on a stream fed by another goroutine, a
// bug that loses an event must fail the test, not hang it until the
// 10-minute timeout. On the deadline it stops the stream (which ends the
// Next still running) and fails.
func next[T any, P meta.PtrObject[T]](t *testing.T, s *watchstream.Stream[T, P]) (watchstream.Event[P], error) {
	t.Helper()
	type result struct {
		ev  watchstream.Event[P]
		err error
	}
	done := make(chan result, 1)
	go func() {
		ev, err := s.Next()
		done <- result{ev, err}
	}()
	select {
	case r := <-done:
		return r.ev, r.err
	case <-time.After(prompt):
		s.Stop()
		<-done
		t.Fatal("Next did not return")
		return watchstream.Event[P]{}, nil
	}
}

func waitErr(t *testing.T, done <-chan error) error {
	t.Helper()
	select {
	case err := <-done:
		return err
	case <-time.After(prompt):
		t.Fatal("Next did not return")
		return nil
	}
}

func TestGzipMembersAreDecodedAsTheyArrive(t *testing.T) {
	pr, pw := io.Pipe()
	enc := watchstream.NewEncoder(pw, watchstream.EncoderOptions{Gzip: true})
	s := watchstream.New[testPod](context.Background(), pr, watchstream.Options{ContentEncoding: "gzip"})
	defer s.Stop()

	writeErr := make(chan error, 1)
	go func() {
		writeErr <- enc.WriteFrame([]byte(`{"type":"ADDED","object":{"metadata":{"name":"a","resourceVersion":"1"}}}` + "\n"))
	}()
	ev, err := next(t, s)
	require.NoError(t, err)
	require.Equal(t, "a", ev.Object.Name, "delivered before a second member exists")
	require.NoError(t, <-writeErr)

	go func() {
		err := enc.Encode(meta.Bookmark, map[string]any{"metadata": map[string]any{
			"resourceVersion": "9", "annotations": map[string]string{meta.InitialEventsEndAnnotation: "true"}}})
		if err == nil {
			err = pw.Close()
		}
		writeErr <- err
	}()
	ev, err = next(t, s)
	require.NoError(t, err)
	require.True(t, ev.InitialEventsEnd)
	require.Equal(t, "9", ev.ResourceVersion)
	_, err = next(t, s)
	require.ErrorIs(t, err, io.EOF)
	require.NoError(t, <-writeErr)
}

func TestGzipSingleMemberAndCorruption(t *testing.T) {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	_, _ = zw.Write([]byte(strings.Repeat(okEvent, 3)))
	require.NoError(t, zw.Close())
	s := watchstream.New[testPod](context.Background(), io.NopCloser(bytes.NewReader(b.Bytes())), watchstream.Options{ContentEncoding: "GZIP"})
	evs, err := drain(s)
	require.ErrorIs(t, err, io.EOF)
	require.Len(t, evs, 3)

	s = watchstream.New[testPod](context.Background(), io.NopCloser(strings.NewReader(okEvent)), watchstream.Options{ContentEncoding: "gzip"})
	_, err = s.Next()
	require.ErrorContains(t, err, "watchstream: gzip header")
}

func TestStopUnblocksNextOnASilentPeer(t *testing.T) {
	pr, pw := io.Pipe()
	defer pw.Close()
	s := watchstream.New[testPod](context.Background(), pr, watchstream.Options{})
	done := nextAsync(s)
	s.Stop()
	s.Stop() // idempotent
	require.ErrorIs(t, waitErr(t, done), io.EOF)
	_, err := s.Next()
	require.ErrorIs(t, err, io.EOF)
}

func TestStopUnblocksNextOverHTTP(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		select { // silent until the client goes away
		case <-r.Context().Done():
		case <-release:
		}
	}))
	defer srv.Close()
	defer close(release)
	resp, err := http.Get(srv.URL)
	require.NoError(t, err)
	s := watchstream.New[testPod](context.Background(), resp.Body, watchstream.Options{})
	done := nextAsync(s)
	s.Stop()
	require.ErrorIs(t, waitErr(t, done), io.EOF)
}

func TestContextCancelUnblocksNext(t *testing.T) {
	pr, pw := io.Pipe()
	defer pw.Close()
	ctx, cancel := context.WithCancelCause(context.Background())
	s := watchstream.New[testPod](ctx, pr, watchstream.Options{})
	done := nextAsync(s)
	cause := errors.New("informer stopping")
	cancel(cause)
	err := waitErr(t, done)
	require.ErrorIs(t, err, cause)
	require.ErrorContains(t, err, "watchstream: stopped")
}

func TestStallTimeoutEndsASilentStream(t *testing.T) {
	pr, pw := io.Pipe()
	defer pw.Close()
	var c watchstream.Counters
	clk := clocktest.New()
	s := watchstream.New[testPod](context.Background(), pr, watchstream.Options{StallTimeout: time.Minute, Metrics: &c, Clock: clk})
	go func() { _, _ = pw.Write([]byte(okEvent)) }()
	_, err := next(t, s)
	require.NoError(t, err)
	done := nextAsync(s)
	require.NoError(t, clk.AwaitTimers(t.Context(), 1), "the read is waiting, the watchdog armed")
	clk.Advance(time.Minute - time.Nanosecond)
	select {
	case err := <-done:
		t.Fatalf("the stream ended before its stall timeout: %v", err)
	default:
	}
	clk.Advance(time.Nanosecond)
	err = waitErr(t, done)
	require.ErrorIs(t, err, watchstream.ErrStalled)
	require.Equal(t, watchstream.Stalled, watchstream.ProblemOf(err))
	require.EqualError(t, err, "watchstream: event 2 at byte 74: stalled: no event for 1m0s", "said once, with where")
	require.Zero(t, c.DecodeErrors.Load(), "a stall is not bad input")
}

// Progress is objects, not bytes: an event that trickles in a byte at a
// time, each byte well within the bound, stalls the stream all the same
// (a reader whose watchdog counted bytes waited for ever on a server that
// delivered nothing). Whole events that come within the bound, for many
// times the bound in total, do not.
func TestStallTimeoutCountsEventsNotBytes(t *testing.T) {
	const bound = time.Minute
	t.Run("bytes", func(t *testing.T) {
		clk := clocktest.New()
		pr, pw := io.Pipe()
		s := watchstream.New[testPod](context.Background(), pr, watchstream.Options{StallTimeout: bound, Clock: clk})
		defer s.Stop()
		go func() {
			ev := []byte(okEvent)
			for i := range ev {
				if _, err := pw.Write(ev[i : i+1]); err != nil {
					return
				}
				clk.Advance(bound / 3)
			}
		}()
		_, err := next(t, s)
		require.Equal(t, watchstream.Stalled, watchstream.ProblemOf(err), "%v", err)
	})
	t.Run("events", func(t *testing.T) {
		clk := clocktest.New()
		pr, pw := io.Pipe()
		s := watchstream.New[testPod](context.Background(), pr, watchstream.Options{StallTimeout: bound, Clock: clk})
		defer s.Stop()
		go func() {
			for range 10 {
				// Next is waiting, its watchdog armed now: the event
				// comes a second within the bound.
				if clk.AwaitDeadline(t.Context(), clk.Now().Add(bound)) != nil {
					return
				}
				clk.Advance(bound - time.Second)
				if _, err := pw.Write([]byte(okEvent)); err != nil {
					return
				}
			}
			_ = pw.Close()
		}()
		for range 10 {
			_, err := next(t, s)
			require.NoError(t, err)
		}
		_, err := next(t, s)
		require.ErrorIs(t, err, io.EOF)
		require.Greater(t, clk.Now().Sub(clocktest.Start), 9*bound, "the events took many times the bound")
	})
}

// A streaming list's initial events have a bound of their own, until the
// bookmark that ends them; the watch after it has StallTimeout.
func TestInitialStallTimeoutHoldsUntilTheEndBookmark(t *testing.T) {
	const initial, watch = 10 * time.Second, time.Minute
	end := `{"type":"BOOKMARK","object":{"metadata":{"resourceVersion":"2","annotations":{"k8s.io/initial-events-end":"true"}}}}` + "\n"
	for _, tc := range []struct {
		name  string
		sent  string
		stall time.Duration
	}{
		{"before the end bookmark", okEvent, initial},
		{"after it", okEvent + end, watch},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clk := clocktest.New()
			pr, pw := io.Pipe()
			defer pw.Close()
			s := watchstream.New[testPod](context.Background(), pr, watchstream.Options{StallTimeout: watch, InitialStallTimeout: initial, Clock: clk})
			go func() { _, _ = pw.Write([]byte(tc.sent)) }()
			for range strings.Count(tc.sent, "\n") {
				_, err := next(t, s)
				require.NoError(t, err)
			}
			done := nextAsync(s)
			require.NoError(t, clk.AwaitTimers(t.Context(), 1))
			clk.Advance(tc.stall - time.Nanosecond)
			select {
			case err := <-done:
				t.Fatalf("stalled before %v: %v", tc.stall, err)
			default:
			}
			clk.Advance(time.Nanosecond)
			require.Equal(t, watchstream.Stalled, watchstream.ProblemOf(waitErr(t, done)))
		})
	}
}

func TestStallTimeoutIgnoresASlowConsumer(t *testing.T) {
	const idle = time.Minute
	clk := clocktest.New()
	body := io.NopCloser(strings.NewReader(strings.Repeat(okEvent, 2)))
	s := watchstream.New[testPod](context.Background(), body, watchstream.Options{StallTimeout: idle, Clock: clk})
	_, err := s.Next()
	require.NoError(t, err)
	require.Zero(t, clk.Pending(), "no read is waiting: the watchdog is not running")
	clk.Advance(3 * idle) // the consumer is busy; the data is already there
	_, err = s.Next()
	require.NoError(t, err)
	_, err = s.Next()
	require.ErrorIs(t, err, io.EOF)
}

func TestCancelledContextBeforeTheFirstNext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	body := &closeRecorder{Reader: strings.NewReader(okEvent)}
	s := watchstream.New[testPod](ctx, body, watchstream.Options{})
	_, err := s.Next()
	require.ErrorIs(t, err, context.Canceled)
	require.True(t, body.closed.Load())
}

func TestNextAfterStopDoesNotReadOn(t *testing.T) {
	s := watchstream.New[testPod](context.Background(), io.NopCloser(strings.NewReader(okEvent)), watchstream.Options{})
	s.Stop()
	_, err := s.Next()
	require.ErrorIs(t, err, io.EOF)
}
