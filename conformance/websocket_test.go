package conformance

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/gorilla/websocket"
	"github.com/stretchr/testify/require"
)

// websocketScenarios: a watch over a websocket, as browsers and some
// clients open it.
var websocketScenarios = []scenario{
	{name: "watch/websocket", run: func(t *testing.T, tg *target, o *obs) {
		ns := tg.namespace(t)
		p := "/api/v1/namespaces/" + ns + "/configmaps"
		c := tg.must(t, 201, "POST", p, cmJSON("a"))
		q := p + "?watch=1&resourceVersion=" + str(at(c, "metadata.resourceVersion"))
		_, code := tg.dialWatch(t, q, false)
		o.add("without Origin: %d", code)
		conn, code := tg.dialWatch(t, q, true)
		o.add("with Origin: %d subprotocol=%q", code, conn.Subprotocol())
		tg.must(t, 200, "PATCH", p+"/a", `{"metadata":{"labels":{"x":"y"}}}`, "Content-Type", "application/merge-patch+json")
		tg.must(t, 200, "DELETE", p+"/a", "")
		for range 2 {
			kind, msg, err := conn.ReadMessage()
			require.NoError(t, err)
			var ev event
			require.NoError(t, json.Unmarshal(msg, &ev))
			o.add("message text=%t newline=%t %s %s", kind == websocket.TextMessage, strings.HasSuffix(string(msg), "\n"),
				ev.Type, str(at(ev.Object, "metadata.name")))
		}
	}},
}

// dialWatch opens a websocket watch; conn is nil when the upgrade failed.
func (tg *target) dialWatch(t *testing.T, path string, origin bool) (*websocket.Conn, int) {
	t.Helper()
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(tg.cfg.TLS.CAData)
	d := websocket.Dialer{TLSClientConfig: &tls.Config{RootCAs: pool}, HandshakeTimeout: 10 * time.Second}
	h := http.Header{"Authorization": {"Bearer " + tg.token}}
	if origin {
		h.Set("Origin", tg.url)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, resp, err := d.DialContext(ctx, "wss"+strings.TrimPrefix(tg.url, "https")+path, h)
	code := 0
	if resp != nil {
		code = resp.StatusCode
		_ = resp.Body.Close()
	}
	if err != nil {
		return nil, code
	}
	t.Cleanup(func() { _ = conn.Close() })
	return conn, code
}
