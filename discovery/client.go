package discovery

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/zerokube/zerokube/apiclient"
	"github.com/zerokube/zerokube/clock"
)

// Options tune a Client. The zero value means defaults.
type Options struct {
	// MinRefreshInterval is the least time between two reads of discovery
	// that misses cause: a name that fits nothing makes the Client read
	// discovery again (a custom resource may have been installed since),
	// but a loop of such names must not hammer the server. 0 means
	// DefaultMinRefreshInterval.
	MinRefreshInterval time.Duration
	// Logger receives one debug line per read of discovery, and a warning
	// when a short name also fits a lower priority resource (kubectl warns
	// too); nil discards.
	Logger *slog.Logger
	// Clock times MinRefreshInterval; nil means the real clock.
	Clock clock.Clock
}

// DefaultMinRefreshInterval is Options.MinRefreshInterval's default.
const DefaultMinRefreshInterval = time.Second

// Client reads discovery from one server, keeps it, and resolves names
// against it. It is safe for concurrent use; make one per apiclient.Client.
type Client struct {
	c        *apiclient.Client
	interval time.Duration
	log      *slog.Logger
	clock    clock.Clock

	refresh sync.Mutex // held while discovery is read, so one read serves all waiters

	mu      sync.Mutex // guards index and read
	index   *Index     // nil until the first read
	read    time.Time  // when index was read, on clock
	version int        // counts reads, so a waiter can tell whether another read happened
}

// New returns a Client that reads discovery over c when first asked.
func New(c *apiclient.Client, opts Options) *Client {
	d := &Client{c: c, interval: opts.MinRefreshInterval, log: opts.Logger, clock: opts.Clock}
	if d.interval <= 0 {
		d.interval = DefaultMinRefreshInterval
	}
	if d.log == nil {
		d.log = slog.New(slog.DiscardHandler)
	}
	if d.clock == nil {
		d.clock = clock.Real{}
	}
	return d
}

// APIClient returns the client discovery is read over.
func (d *Client) APIClient() *apiclient.Client { return d.c }

// Index returns what the server serves: the kept snapshot, read now if
// there is none yet.
func (d *Client) Index(ctx context.Context) (*Index, error) {
	x, _, _, err := d.cached(ctx)
	return x, err
}

// cached returns the kept snapshot and its number, reading one first when
// there is none (then readNow is true).
func (d *Client) cached(ctx context.Context) (x *Index, n int, readNow bool, err error) {
	d.mu.Lock()
	x, n = d.index, d.version
	d.mu.Unlock()
	if x != nil {
		return x, n, false, nil
	}
	x, n, err = d.refreshAfter(ctx, n)
	return x, n, true, err
}

// Refresh reads discovery again now, unless another read finished while
// this one waited for its turn, and keeps it. Reads are at least
// MinRefreshInterval apart: Refresh waits for that (or ctx).
func (d *Client) Refresh(ctx context.Context) (*Index, error) {
	d.mu.Lock()
	seen := d.version
	d.mu.Unlock()
	x, _, err := d.refreshAfter(ctx, seen)
	return x, err
}

// refreshAfter reads discovery unless a read newer than number seen is
// kept already.
func (d *Client) refreshAfter(ctx context.Context, seen int) (*Index, int, error) {
	d.refresh.Lock()
	defer d.refresh.Unlock()
	d.mu.Lock()
	x, n, last := d.index, d.version, d.read
	d.mu.Unlock()
	if x != nil && n > seen {
		return x, n, nil
	}
	if x != nil {
		if wait := last.Add(d.interval).Sub(d.clock.Now()); wait > 0 {
			if err := clock.Sleep(ctx, d.clock, wait); err != nil {
				return nil, 0, err
			}
		}
	}
	groups, aggregated, err := fetch(ctx, d.c)
	if err != nil {
		return nil, 0, err
	}
	x = NewIndex(groups)
	d.log.Debug("discovery: read", "server", d.c.Host(), "aggregated", aggregated, "resources", len(x.all))
	d.mu.Lock()
	defer d.mu.Unlock()
	d.index, d.read = x, d.clock.Now()
	d.version++
	return x, d.version, nil
}

// Resolve finds the resource type that name names, by the rules of
// Index.Resolve. When the kept snapshot has no such name, discovery is read
// again (at most once per MinRefreshInterval) and asked once more, so a
// custom resource installed after the first read is found; a snapshot read
// by this very call is not read again.
func (d *Client) Resolve(ctx context.Context, name string) (Resource, error) {
	x, n, readNow, err := d.cached(ctx)
	if err != nil {
		return Resource{}, err
	}
	r, err := x.Resolve(name)
	if IsNotFound(err) && !readNow {
		if x, _, err = d.refreshAfter(ctx, n); err != nil {
			return Resource{}, err
		}
		r, err = x.Resolve(name)
	}
	var nf *NotFoundError
	if errors.As(err, &nf) {
		nf.Server = d.c.Host()
	}
	if err == nil {
		for _, other := range x.Shadowed(name, r) {
			d.log.Warn("discovery: a short name could also match a lower priority resource", "name", name,
				"resolved", r.GVR.String(), "also", other)
		}
	}
	return r, err
}
