package apiclient

import (
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync"
	"time"
)

// tokenSource yields the bearer token: a fixed one, or the contents of a file
// read again whenever its modification time or size changes. Projected
// service-account tokens are rewritten about hourly; checking the file's
// metadata costs one stat per request, far less than the request itself.
type tokenSource struct {
	static string
	file   string
	log    *slog.Logger

	mu      sync.Mutex // guards token, modTime and size
	token   string
	modTime time.Time
	size    int64
}

// newTokenSource returns nil when neither a token nor a file is set. A file
// wins over a fixed token, as in client-go; it is read once now so that a
// missing file fails early.
func newTokenSource(token, file string, log *slog.Logger) (*tokenSource, error) {
	if token == "" && file == "" {
		return nil, nil
	}
	ts := &tokenSource{static: token, file: file, log: log}
	if file != "" {
		if _, err := ts.get(); err != nil {
			return nil, err
		}
	}
	return ts, nil
}

// get returns the current token. When the file cannot be read but was read
// before, the last token is kept: a rotation in progress must not fail
// requests.
func (ts *tokenSource) get() (string, error) {
	if ts.file == "" {
		return ts.static, nil
	}
	ts.mu.Lock()
	defer ts.mu.Unlock()
	fi, err := os.Stat(ts.file)
	if err == nil && ts.token != "" && fi.ModTime().Equal(ts.modTime) && fi.Size() == ts.size {
		return ts.token, nil
	}
	var b []byte
	if err == nil {
		b, err = os.ReadFile(ts.file)
	}
	tok := strings.TrimSpace(string(b))
	if err == nil && tok == "" {
		err = fmt.Errorf("the file is empty")
	}
	if err != nil {
		if ts.token != "" {
			ts.log.Warn("apiclient: keeping the previous bearer token", "file", ts.file, "error", err)
			return ts.token, nil
		}
		return "", fmt.Errorf("apiclient: bearer token file %s: %w", ts.file, err)
	}
	if ts.token != "" && tok != ts.token {
		ts.log.Debug("apiclient: bearer token file changed; using the new token", "file", ts.file)
	}
	ts.token, ts.modTime, ts.size = tok, fi.ModTime(), fi.Size()
	return tok, nil
}
