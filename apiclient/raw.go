package apiclient

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/zerokube/zerokube/meta"
)

// GetRaw reads the document at path (a discovery document, /version) as
// accept asks for it, and returns its body, at most MaxObjectSize bytes,
// and its Content-Type. It is retried like Get. Discovery uses it; typed
// objects go through Get.
func (c *Client) GetRaw(ctx context.Context, path, accept string) ([]byte, string, error) {
	ctx, cancel := c.withTimeout(ctx)
	defer cancel()
	r := request{method: "GET", path: path, read: true, header: http.Header{"Accept": {accept}}}
	resp, err := c.do(ctx, r)
	if err != nil {
		return nil, "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, MaxObjectSize+1))
	if err != nil {
		return nil, "", fmt.Errorf("apiclient: GET %s: reading the reply: %w", path, err)
	}
	if len(body) > MaxObjectSize {
		return nil, "", fmt.Errorf("apiclient: GET %s: the reply is larger than %d bytes", path, MaxObjectSize)
	}
	return body, resp.Header.Get("Content-Type"), nil
}

// Probe asks the server whether it answers at all: one GET of /livez,
// never retried, whose reply, whatever its status, means yes. It is what
// an informer backing off after the server was out of reach asks once a
// second, so that it notices the server is back within about a second
// instead of waiting out a backoff grown during the outage (client-go's
// REST client gets there by retrying the failed GET once a second). The
// request is the cheapest kube-apiserver answers: no storage, no
// encoding of objects.
func (c *Client) Probe(ctx context.Context) error {
	ctx, cancel := c.withTimeout(ctx)
	defer cancel()
	resp, err := c.do(ctx, request{method: "GET", path: "/livez", header: http.Header{"Accept": {"text/plain"}}})
	if err != nil {
		var se *meta.StatusError
		if errors.As(err, &se) {
			return nil // it answered, if only to refuse
		}
		return err
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 4096))
	return resp.Body.Close()
}
