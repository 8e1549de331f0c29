package watchstream

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/zerokube/zerokube/internal/gunzip"

	"github.com/zerokube/zerokube/clock"
)

// errEventTooLarge is what limitReader returns once an event's budget is
// spent; Stream turns it into a *DecodeError wrapping ErrTooLarge.
var errEventTooLarge = errors.New("event size limit reached")

// wireReader sits right on the connection: every read is counted.
type wireReader struct {
	r       io.Reader
	metrics Metrics // nil without metrics
	n       int64   // bytes read so far
	// err is the first read error of the transport itself (a reset, a
	// cancelled request), so that it is reported as what it is and not
	// as bad input: the decoder above sees only that its input stopped.
	// The body ending early (io.ErrUnexpectedEOF, or a websocket closed
	// inside a message: ErrCut) is not one: that is a truncated body, a
	// Problem of its own.
	err error
}

func (w *wireReader) Read(p []byte) (int, error) {
	n, err := w.r.Read(p)
	w.n += int64(n)
	if n > 0 && w.metrics != nil {
		w.metrics.BytesRead(n)
	}
	if err != nil && err != io.EOF && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, ErrCut) && w.err == nil {
		w.err = err
	}
	return n, err
}

// transportError is the error a decoder's failure is reported as when the
// transport under it failed first; nil when it did not.
func (w *wireReader) transportError(what string) error {
	if w.err == nil || w.err == errClosed {
		return nil
	}
	return fmt.Errorf("watchstream: reading the %s: %w", what, w.err)
}

// limitReader caps what the JSON decoder may read for one event. jsontext
// buffers a whole value (and grows its buffer to fit), so without a cap a
// huge or endless event would be an unbounded allocation. The decoder reads
// ahead, so an event may also use bytes read before it began; Stream checks
// the event's exact size when it ends.
type limitReader struct {
	r      io.Reader
	pos    int64 // bytes read so far
	budget int64 // pos may not pass this
}

// allow lets the decoder read n more bytes from now.
func (l *limitReader) allow(n int64) { l.budget = l.pos + n }

func (l *limitReader) Read(p []byte) (int, error) {
	rem := l.budget - l.pos
	if rem <= 0 {
		return 0, errEventTooLarge
	}
	if int64(len(p)) > rem {
		p = p[:rem]
	}
	n, err := l.r.Read(p)
	l.pos += int64(n)
	return n, err
}

// gzipMembers inflates a gzip stream of any number of members, returning
// each member's last bytes before it looks for the next member. The
// standard multistream mode reads the next header in the same Read that
// returns the previous member's tail, so with one member per event the end
// of each event would wait for the next one.
//
// The inflater is klauspost/compress's (package internal/gunzip; the
// standard one under the build tag zerokube_stdgzip), as apiclient's for
// LIST replies:
// compress/flate allocates its Huffman tables again for every block, five
// allocations per one-member event, and inflates at about two thirds of
// the speed (watchstream's BenchmarkDecodeGzip: 17.3 allocations per 5 KB
// event against 11.3 for the same events uncompressed, which is what this
// inflater leaves; 34 against 24 µs of CPU per event).
type gzipMembers struct {
	br     *bufio.Reader // a ByteReader, so gzip reads no further than a member
	zr     gunzip.Reader
	inside bool // a member's header was read and its end not reached
}

func newGzipMembers(r io.Reader) *gzipMembers {
	return &gzipMembers{br: bufio.NewReader(r)}
}

func (g *gzipMembers) Read(p []byte) (int, error) {
	for {
		if !g.inside {
			if err := g.zr.Reset(g.br); err != nil {
				if err == io.EOF {
					return 0, io.EOF // a clean end between members
				}
				return 0, fmt.Errorf("watchstream: gzip header: %w", err)
			}
			g.zr.Multistream(false)
			g.inside = true
		}
		n, err := g.zr.Read(p)
		if err == io.EOF {
			g.inside = false
			if n == 0 {
				continue
			}
			return n, nil
		}
		return n, err
	}
}

// watchdog is a reply's one progress watchdog (Options.StallTimeout): it
// calls fire when the reader has waited d for the next object. It is armed
// only while the reader waits on the server, so a consumer that is slow to
// ask for the next object is never mistaken for a silent peer.
type watchdog struct {
	mu    sync.Mutex // guards t and done against an arm after stop
	t     clock.Timer
	done  bool
	fired atomic.Bool // fire has run: the reply stalled
}

func newWatchdog(c clock.Clock, fire func()) *watchdog {
	w := &watchdog{}
	w.t = c.AfterFunc(time.Hour, func() {
		w.fired.Store(true)
		fire()
	})
	w.t.Stop()
	return w
}

// arm starts the clock for the next object, which may take d.
func (w *watchdog) arm(d time.Duration) {
	w.mu.Lock()
	if !w.done {
		w.t.Reset(d)
	}
	w.mu.Unlock()
}

// disarm stops the clock: an object came.
func (w *watchdog) disarm() { w.t.Stop() }

// stop disarms the watchdog for good.
func (w *watchdog) stop() {
	w.mu.Lock()
	w.done = true
	w.t.Stop()
	w.mu.Unlock()
}

// stallError is the error of a reply its watchdog ended: what did not
// come, and for how long.
type stallError struct {
	what string // "item", "event"
	d    time.Duration
}

func (e *stallError) Error() string        { return fmt.Sprintf("no %s for %v", e.what, e.d) }
func (e *stallError) Is(target error) bool { return target == ErrStalled }
