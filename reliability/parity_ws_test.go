package reliability

import (
	"encoding/binary"
	"errors"
	"io"
	"net/http"

	"github.com/gorilla/websocket"
)

// serveWebsocket proxies a websocket watch: one message upstream is one
// message to the client, and the armed rewrite lands on a message as it
// lands on a chunked stream's event (a JSON line, a bare protobuf
// WatchEvent: the websocket framing of each). cut aborts the connection
// after the rewritten message, without a close frame.
func (b *bodyProxy) serveWebsocket(w http.ResponseWriter, r *http.Request) {
	u := *b.upstream
	u.Scheme = map[string]string{"https": "wss", "http": "ws"}[u.Scheme]
	u.Path, u.RawQuery = r.URL.Path, r.URL.RawQuery
	h := http.Header{}
	for _, k := range []string{"Authorization", "Accept", "Origin"} {
		if v := r.Header.Get(k); v != "" {
			h.Set(k, v)
		}
	}
	d := websocket.Dialer{TLSClientConfig: b.tr.TLSClientConfig, Subprotocols: websocket.Subprotocols(r)}
	up, resp, err := d.DialContext(r.Context(), u.String(), h)
	if err != nil {
		if resp == nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		// The server refused the upgrade: its reply goes back as it is.
		defer resp.Body.Close()
		for k, v := range resp.Header {
			w.Header()[k] = v
		}
		w.WriteHeader(resp.StatusCode)
		_, _ = io.Copy(w, resp.Body)
		return
	}
	defer up.Close()
	upgrader := websocket.Upgrader{CheckOrigin: func(*http.Request) bool { return true }}
	if p := up.Subprotocol(); p != "" {
		upgrader.Subprotocols = []string{p}
	}
	down, err := upgrader.Upgrade(w, r, nil)
	if err != nil {
		return
	}
	defer down.Close()
	// The client's side: its close (or going away) ends the upstream watch.
	go func() {
		defer up.Close()
		for {
			if _, _, err := down.NextReader(); err != nil {
				return
			}
		}
	}()
	var rewrite func([]byte) []byte
	cut := false
	for {
		mt, ev, err := up.ReadMessage()
		if err != nil {
			var ce *websocket.CloseError
			if errors.As(err, &ce) {
				_ = down.WriteMessage(websocket.CloseMessage, websocket.FormatCloseMessage(ce.Code, ce.Text))
			}
			return
		}
		protobuf := mt == websocket.BinaryMessage
		if rewrite == nil {
			rewrite, cut = b.take(r)
		}
		if rewrite != nil && !isBookmark(ev, protobuf) {
			b.fired.Store(true)
			if cut {
				// The message's header says the whole event; less follows,
				// and the connection ends: a cut mid-message, as a dropped
				// connection makes one (a whole message holding a cut
				// event is not something a network does).
				_, _ = down.NetConn().Write(append(frameHeader(mt, len(ev)), rewrite(ev)...))
				return
			}
			if err := down.WriteMessage(mt, rewrite(ev)); err != nil {
				return
			}
			rewrite = nil
			continue
		}
		if err := down.WriteMessage(mt, ev); err != nil {
			return
		}
	}
}

// frameHeader is the header of one unfragmented, unmasked (server to
// client) websocket frame of n payload bytes (RFC 6455 section 5.2).
func frameHeader(messageType, n int) []byte {
	h := []byte{0x80 | byte(messageType)}
	switch {
	case n < 126:
		return append(h, byte(n))
	case n <= 0xffff:
		return binary.BigEndian.AppendUint16(append(h, 126), uint16(n))
	default:
		return binary.BigEndian.AppendUint64(append(h, 127), uint64(n))
	}
}
