package apiclient

import (
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/zerokube/zerokube/clock"
)

// tokenReread bounds how long a token read from a file is used without
// reading the file again, whatever its metadata says. client-go re-reads
// its token file at least this often (transport.NewCachedFileTokenSource:
// a token that expires a minute after it was read, renewed 10 s early).
const tokenReread = time.Minute

// tokenSource yields the bearer token: a fixed one, or the contents of a file
// read again when its modification time or size changes, when the token
// read last is a minute old, and after the server refused it (invalidate).
// Projected service-account tokens are rewritten about hourly; checking the
// file's metadata costs one stat per request, far less than the request
// itself. Metadata alone can miss a rotation: two writes within the
// file system's time granularity, of tokens of the same length, leave both
// unchanged, and so do copies that keep the old time.
type tokenSource struct {
	static string
	file   string
	log    *slog.Logger
	clock  clock.Clock

	mu      sync.Mutex // guards the fields below
	token   string
	modTime time.Time
	size    int64
	readAt  time.Time // on clock
	stale   bool      // the server refused token: read the file again
}

// newTokenSource returns nil when neither a token nor a file is set. A file
// wins over a fixed token, as in client-go; it is read once now so that a
// missing file fails early.
func newTokenSource(token, file string, log *slog.Logger, clk clock.Clock) (*tokenSource, error) {
	if token == "" && file == "" {
		return nil, nil
	}
	ts := &tokenSource{static: token, file: file, log: log, clock: clk}
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
	now := ts.clock.Now()
	fi, err := os.Stat(ts.file)
	if err == nil && ts.token != "" && !ts.stale && now.Sub(ts.readAt) < tokenReread &&
		fi.ModTime().Equal(ts.modTime) && fi.Size() == ts.size {
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
	ts.token, ts.modTime, ts.size, ts.readAt, ts.stale = tok, fi.ModTime(), fi.Size(), now, false
	return tok, nil
}

// invalidate makes the next get read the file again, after the server
// refused sent. A token read since sent was is kept: it has not been
// refused yet, and many requests refused at once must not each read the
// file.
func (ts *tokenSource) invalidate(sent string) {
	if ts.file == "" {
		return
	}
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if ts.token == sent {
		ts.stale = true
	}
}
