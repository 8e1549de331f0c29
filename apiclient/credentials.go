package apiclient

import "context"

// bearer is the token a request carries now: from the Config, its token
// file, or the credential plugin; "" for none.
func (c *Client) bearer(ctx context.Context) (string, error) {
	switch {
	case c.token != nil:
		return c.token.get()
	case c.exec != nil:
		cred, err := c.exec.get(ctx)
		if err != nil {
			return "", err
		}
		return cred.token, nil
	}
	return "", nil
}

// renew is called after the server answered 401 to a request that carried
// sent: it drops that credential (the token file is read again, the plugin
// runs again) and reports whether another token is now at hand, so the
// request is worth one more try. A fixed token cannot change: false.
func (c *Client) renew(ctx context.Context, sent string) bool {
	switch {
	case c.token != nil:
		c.token.invalidate(sent)
	case c.exec != nil:
		c.exec.invalidate(sent)
	default:
		return false
	}
	tok, err := c.bearer(ctx)
	return err == nil && tok != sent
}
