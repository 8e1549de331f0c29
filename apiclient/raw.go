package apiclient

import (
	"context"
	"fmt"
	"io"
	"net/http"
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
