package apiclient

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"

	"github.com/zerokube/zerokube/clock"
	"github.com/zerokube/zerokube/meta"
)

// request is one API call, before it is sent.
type request struct {
	method      string
	path        string
	query       url.Values
	body        []byte // nil for none
	contentType string
	header      http.Header // extra headers
	// accept is the Accept header; "" means application/json.
	accept string
	// read marks LIST and GET: safe to retry.
	read bool
	// watch marks a chunked WATCH, sent with Client.watchHTTP when set.
	watch bool
}

// do sends r, retrying reads, and returns a 2xx response whose body the
// caller must close. Non-2xx replies become errors carrying a
// *meta.StatusError. ctx bounds the whole call, body included; the
// Config's Timeout is the caller's to apply (watches must not get it).
func (c *Client) do(ctx context.Context, r request) (*http.Response, error) {
	attempts := 1
	if r.read {
		attempts = c.retry.attempts
	}
	for attempt := 0; ; attempt++ {
		resp, err := c.send(ctx, r)
		if err == nil {
			return resp, nil
		}
		if ctx.Err() != nil {
			return nil, fmt.Errorf("apiclient: %s %s: %w", r.method, r.path, context.Cause(ctx))
		}
		if attempt+1 >= attempts || !retryable(err) {
			return nil, err
		}
		d := c.retry.wait(attempt, err)
		c.log.Debug("apiclient: retrying a read", "method", r.method, "path", r.path,
			"attempt", attempt+1, "wait", d, "error", err)
		if err := clock.Sleep(ctx, c.clock, d); err != nil {
			return nil, fmt.Errorf("apiclient: %s %s: giving up while waiting to retry: %w", r.method, r.path, err)
		}
	}
}

// send makes one try of r, and one more when the server answers 401 and
// other credentials are at hand (renew): a rotated token file or a
// plugin's new token. A 401 is given before a request does anything, so
// even a write is safe to send again.
func (c *Client) send(ctx context.Context, r request) (*http.Response, error) {
	resp, sent, err := c.sendOnce(ctx, r)
	if err == nil || !meta.IsUnauthorized(err) || !c.renew(ctx, sent) {
		return resp, err
	}
	c.log.Debug("apiclient: 401: retrying once with renewed credentials", "method", r.method, "path", r.path)
	resp, _, err = c.sendOnce(ctx, r)
	return resp, err
}

// sendOnce makes one try of r, and says which bearer token it sent.
func (c *Client) sendOnce(ctx context.Context, r request) (*http.Response, string, error) {
	if err := c.waitLimiter(ctx); err != nil {
		return nil, "", fmt.Errorf("apiclient: %s %s: %w", r.method, r.path, err)
	}
	var body io.Reader
	if r.body != nil {
		body = bytes.NewReader(r.body)
	}
	req, err := http.NewRequestWithContext(ctx, r.method, c.url(r.path, r.query).String(), body)
	if err != nil {
		return nil, "", fmt.Errorf("apiclient: %s %s: %w", r.method, r.path, err)
	}
	tok, err := c.setHeaders(ctx, req.Header)
	if err != nil {
		return nil, "", err
	}
	for k, v := range r.header {
		req.Header[k] = v
	}
	if r.accept != "" {
		req.Header.Set("Accept", r.accept)
	}
	if r.contentType != "" {
		req.Header.Set("Content-Type", r.contentType)
	}
	ownGzip := c.compress && req.Header.Get("Accept-Encoding") == ""
	if ownGzip {
		req.Header.Set("Accept-Encoding", "gzip")
	}
	hc, gate := c.http, c.gate
	if r.watch && c.watchHTTP != nil {
		hc, gate = c.watchHTTP, nil // a connection of its own: nothing to share
	}
	gctx, sent, err := gate.enter(ctx)
	if err != nil {
		return nil, "", fmt.Errorf("apiclient: %s %s: %w", r.method, r.path, err)
	}
	resp, err := hc.Do(req.WithContext(gctx))
	sent()
	if err != nil {
		// *url.Error carries the URL, which holds no secret: tokens go in
		// headers only.
		return nil, "", fmt.Errorf("apiclient: %s %s: %w", r.method, r.path, transportError(err))
	}
	if ownGzip {
		inflate(resp) // see gzip.go
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		defer resp.Body.Close()
		return nil, tok, fmt.Errorf("apiclient: %s %s: %w", r.method, r.path, replyError(resp))
	}
	return resp, tok, nil
}

// setHeaders adds the headers every request carries: user agent, JSON
// accept, and the bearer token (from the config, its file, or the plugin),
// which it returns.
func (c *Client) setHeaders(ctx context.Context, h http.Header) (string, error) {
	h.Set("User-Agent", c.userAgent)
	h.Set("Accept", "application/json")
	tok, err := c.bearer(ctx)
	if err != nil {
		return "", err
	}
	if tok != "" {
		h.Set("Authorization", "Bearer "+tok)
	}
	return tok, nil
}

// withTimeout applies the Config's Timeout to a non-watch call.
func (c *Client) withTimeout(ctx context.Context) (context.Context, context.CancelFunc) {
	if c.timeout <= 0 {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, c.timeout)
}
