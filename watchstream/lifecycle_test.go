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

func TestIdleTimeoutEndsASilentStream(t *testing.T) {
	pr, pw := io.Pipe()
	defer pw.Close()
	var c watchstream.Counters
	clk := clocktest.New()
	s := watchstream.New[testPod](context.Background(), pr, watchstream.Options{IdleTimeout: time.Minute, Metrics: &c, Clock: clk})
	go func() { _, _ = pw.Write([]byte(okEvent)) }()
	_, err := next(t, s)
	require.NoError(t, err)
	done := nextAsync(s)
	require.NoError(t, clk.AwaitTimers(t.Context(), 1), "the read is waiting, the watchdog armed")
	clk.Advance(time.Minute - time.Nanosecond)
	select {
	case err := <-done:
		t.Fatalf("the stream ended before its idle timeout: %v", err)
	default:
	}
	clk.Advance(time.Nanosecond)
	err = waitErr(t, done)
	require.ErrorIs(t, err, watchstream.ErrIdleTimeout)
	require.ErrorContains(t, err, "no bytes for 1m0s")
	require.Zero(t, c.DecodeErrors.Load(), "a timeout is not bad input")
}

func TestIdleTimeoutIsResetByEveryRead(t *testing.T) {
	// An event trickles in a byte at a time, each byte well within the
	// timeout, for many times the timeout in total. A write returns once
	// its byte is read, possibly before that read disarms the watchdog, so
	// one read's watchdog may see two steps of the clock: a step of a
	// third of the timeout keeps each gap under it.
	const idle = time.Minute
	clk := clocktest.New()
	pr, pw := io.Pipe()
	s := watchstream.New[testPod](context.Background(), pr, watchstream.Options{IdleTimeout: idle, Clock: clk})
	defer s.Stop()
	go func() {
		ev := []byte(okEvent)
		for i := range ev {
			if _, err := pw.Write(ev[i : i+1]); err != nil {
				return
			}
			clk.Advance(idle / 3)
		}
		_ = pw.Close()
	}()
	ev, err := next(t, s)
	require.NoError(t, err)
	require.Equal(t, "a", ev.Object.Name)
	_, err = next(t, s)
	require.ErrorIs(t, err, io.EOF)
	require.Greater(t, clk.Now().Sub(clocktest.Start), 10*idle, "the event took many times the timeout")
}

func TestIdleTimeoutIgnoresASlowConsumer(t *testing.T) {
	const idle = time.Minute
	clk := clocktest.New()
	body := io.NopCloser(strings.NewReader(strings.Repeat(okEvent, 2)))
	s := watchstream.New[testPod](context.Background(), body, watchstream.Options{IdleTimeout: idle, Clock: clk})
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
