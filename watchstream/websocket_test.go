package watchstream_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/apiclient"
	zkws "github.com/zerokube/zerokube/apiclient/websocket"
	"github.com/zerokube/zerokube/clock/clocktest"
	"github.com/zerokube/zerokube/meta"
	"github.com/zerokube/zerokube/watchstream"
)

// wsServer serves one websocket per connection, running script on it, and
// returns a client connected by apiclient/websocket's Dialer, which reads
// the messages for NewWebsocket.
func wsServer(t *testing.T, script func(conn *websocket.Conn)) watchstream.MessageConn {
	t.Helper()
	up := websocket.Upgrader{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		conn, err := up.Upgrade(w, r, nil)
		if err != nil {
			return
		}
		defer conn.Close()
		script(conn)
	}))
	t.Cleanup(srv.Close)
	u, err := url.Parse("ws" + strings.TrimPrefix(srv.URL, "http"))
	require.NoError(t, err)
	conn, _, err := zkws.Dialer{}.DialWebsocket(context.Background(), apiclient.WebsocketRequest{URL: u, Timeout: time.Minute})
	require.NoError(t, err)
	t.Cleanup(func() { _ = conn.Close() })
	return conn
}

// closeWith sends a close frame and waits for the client's reply (or its
// disconnect), as a well-behaved server does.
func closeWith(conn *websocket.Conn, code int, reason string) {
	_ = conn.WriteMessage(websocket.CloseMessage, websocket.FormatCloseMessage(code, reason))
	for {
		if _, _, err := conn.ReadMessage(); err != nil {
			return
		}
	}
}

func sendAll(conn *websocket.Conn, msgs ...string) {
	for _, m := range msgs {
		_ = conn.WriteMessage(websocket.TextMessage, []byte(m))
	}
}

func TestWebsocketOneEventPerMessage(t *testing.T) {
	conn := wsServer(t, func(conn *websocket.Conn) {
		sendAll(conn,
			okEvent,
			`{"object":{"metadata":{"name":"b","resourceVersion":"2"}},"type":"MODIFIED"}`,
			`{"type":"BOOKMARK","object":{"metadata":{"resourceVersion":"3","annotations":{"k8s.io/initial-events-end":"true"}}}}`+"\n")
		_ = conn.WriteMessage(websocket.BinaryMessage, []byte(okEvent))
		closeWith(conn, websocket.CloseNormalClosure, "watch timeout")
	})
	var c watchstream.Counters
	s := watchstream.NewWebsocket[testPod](context.Background(), conn, watchstream.Options{Metrics: &c})
	evs, err := drain(s)
	require.ErrorIs(t, err, io.EOF, "a normal closure is a clean end")
	var gots []got
	for _, ev := range evs {
		gots = append(gots, summarize(ev))
	}
	require.Equal(t, []got{
		{meta.Added, "a", "1", "", false},
		{meta.Modified, "b", "2", "", false},
		{meta.Bookmark, "", "3", "", true},
		{meta.Added, "a", "1", "", false},
	}, gots)
	require.Equal(t, int64(4), c.Events.Load())
	require.Positive(t, c.Bytes.Load())
}

func TestWebsocketBadInput(t *testing.T) {
	for _, tc := range []struct {
		name      string
		script    func(conn *websocket.Conn)
		maxSize   int
		wantEvent int64
		wantMsg   string
	}{
		{"close with a reason", func(c *websocket.Conn) {
			sendAll(c, okEvent)
			closeWith(c, websocket.CloseInternalServerErr, "etcd is gone")
		}, 0, 2, "websocket closed by peer: websocket: close 1011 (internal server error): etcd is gone"},
		{"two events in a message", func(c *websocket.Conn) { sendAll(c, okEvent+okEvent) }, 0, 1, "more than one event"},
		{"empty message", func(c *websocket.Conn) { sendAll(c, "") }, 0, 1, "empty websocket message"},
		{"truncated event", func(c *websocket.Conn) { sendAll(c, okEvent, okEvent[:30]) }, 0, 2, "truncated: "},
		{"unknown type", func(c *websocket.Conn) { sendAll(c, `{"type":"X","object":{}}`) }, 0, 1, `unknown event type "X"`},
		{"object does not decode", func(c *websocket.Conn) { sendAll(c, `{"type":"ADDED","object":{"metadata":{"labels":[1]}}}`) }, 0, 1, "does not decode into"},
		{"too large", func(c *websocket.Conn) { sendAll(c, okEvent, strings.Repeat(" ", 200)+okEvent) }, 100, 2, "larger than MaxEventSize (100 bytes)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			conn := wsServer(t, tc.script)
			s := watchstream.NewWebsocket[testPod](context.Background(), conn, watchstream.Options{MaxEventSize: tc.maxSize})
			defer s.Stop()
			_, err := drain(s)
			var de *watchstream.DecodeError
			require.ErrorAs(t, err, &de)
			require.Equal(t, tc.wantEvent, de.Event, "%v", err)
			require.ErrorContains(t, err, tc.wantMsg)
		})
	}
}

func TestWebsocketErrorEvent(t *testing.T) {
	conn := wsServer(t, func(c *websocket.Conn) {
		sendAll(c, `{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Expired","code":410,"message":"too old"}}`)
		closeWith(c, websocket.CloseNormalClosure, "")
	})
	s := watchstream.NewWebsocket[testPod](context.Background(), conn, watchstream.Options{})
	_, err := s.Next()
	require.True(t, meta.IsResourceExpired(err), "%v", err)
}

func TestWebsocketStopAndIdleOnASilentPeer(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts watchstream.Options
		stop bool
		want error
	}{
		{"stop", watchstream.Options{}, true, io.EOF},
		{"stalled", watchstream.Options{StallTimeout: time.Minute}, false, watchstream.ErrStalled},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clk := clocktest.New()
			tc.opts.Clock = clk
			conn := wsServer(t, func(c *websocket.Conn) {
				sendAll(c, okEvent)
				_, _, _ = c.ReadMessage() // silent until the client closes
			})
			s := watchstream.NewWebsocket[testPod](context.Background(), conn, tc.opts)
			_, err := s.Next()
			require.NoError(t, err)
			done := nextAsync(s)
			if tc.stop {
				s.Stop()
			} else {
				require.NoError(t, clk.AwaitTimers(t.Context(), 1), "the next message is awaited, the watchdog armed")
				clk.Advance(time.Minute)
			}
			require.ErrorIs(t, waitErr(t, done), tc.want)
		})
	}
}

// A connection that ends inside a message cuts the event short: Truncated,
// as a chunked body cut inside an event is, not a transport failure (gorilla
// reports it as a close 1006, which once read as "server unreachable" on
// JSON and "malformed" on protobuf).
func TestWebsocketCutInsideAMessageIsTruncated(t *testing.T) {
	for _, mt := range []int{websocket.TextMessage, websocket.BinaryMessage} {
		t.Run(map[int]string{websocket.TextMessage: "text", websocket.BinaryMessage: "binary"}[mt], func(t *testing.T) {
			conn := wsServer(t, func(c *websocket.Conn) {
				sendAll(c, okEvent)
				// A header that says the whole event, half of it, then the end.
				_, _ = c.NetConn().Write(append([]byte{0x80 | byte(mt), byte(len(okEvent))}, okEvent[:len(okEvent)/2]...))
			})
			require.Less(t, len(okEvent), 126, "a one-byte payload length")
			s := watchstream.NewWebsocket[testPod](context.Background(), conn, watchstream.Options{})
			defer s.Stop()
			_, err := drain(s)
			var de *watchstream.DecodeError
			require.ErrorAs(t, err, &de)
			require.Equal(t, watchstream.Truncated, de.Problem, "%v", err)
			require.Equal(t, int64(2), de.Event)
		})
	}
}
