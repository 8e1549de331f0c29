package leaderelection

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/zerokube/zerokube/apiclient"
	"github.com/zerokube/zerokube/clock"
)

// Defaults of Config, client-go's (its "core clients" values).
const (
	DefaultLeaseDuration = 15 * time.Second
	DefaultRenewDeadline = 10 * time.Second
	DefaultRetryPeriod   = 2 * time.Second
)

// Config configures an Elector. The zero value of every optional field
// means its default.
type Config struct {
	Client    *apiclient.Client // required
	Namespace string            // the Lease's namespace; required
	Name      string            // the Lease's name; required
	// Identity names this candidate in the Lease's holderIdentity; it must
	// be unique among the candidates (a pod name, or host name and PID).
	Identity string

	// LeaseDuration is how long the others wait, from the moment they saw
	// the Lease last change, before they may take it (default 15 s). It
	// must be longer than RenewDeadline.
	LeaseDuration time.Duration
	// RenewDeadline is how long the leader leads after the start of its
	// last successful renewal (default 10 s). It must be longer than
	// RetryPeriod. LeaseDuration - RenewDeadline is the safety margin: it
	// absorbs the time a cancellation takes to reach the work and any
	// difference in the rates of the candidates' clocks.
	RenewDeadline time.Duration
	// RetryPeriod is the time between two attempts to acquire or renew
	// (default 2 s).
	RetryPeriod time.Duration

	// OnStartedLeading runs, in a goroutine of its own, when this
	// candidate becomes the leader. Its context ends when leadership ends,
	// with a *LostError cause, before the Lease can expire for the others
	// (invariant 1). If it returns sooner, the candidate still leads (and
	// renews) until then, as in client-go. Required.
	OnStartedLeading func(ctx context.Context)
	// OnStoppedLeading, when set, is called once OnStartedLeading has
	// returned after leadership ended (never for a candidate that did not
	// lead).
	OnStoppedLeading func()
	// OnNewLeader, when set, is called with each holder this candidate
	// observes that differs from the last one it reported, itself
	// included. It runs on Run's goroutine while campaigning: a slow
	// callback delays attempts, never a renewal.
	OnNewLeader func(identity string)

	// KeepOnCancel leaves the Lease held when Run's context ends, so the
	// others wait out LeaseDuration. By default the leader releases it
	// (after OnStartedLeading has returned) and another takes over at its
	// next attempt.
	KeepOnCancel bool

	Clock  clock.Clock  // nil means the real clock
	Logger *slog.Logger // nil means slog.Default()
}

func (c *Config) defaults() error {
	if c.Client == nil || c.Namespace == "" || c.Name == "" || c.Identity == "" || c.OnStartedLeading == nil {
		return errors.New("leaderelection: Config needs Client, Namespace, Name, Identity and OnStartedLeading")
	}
	c.LeaseDuration = orDefault(c.LeaseDuration, DefaultLeaseDuration)
	c.RenewDeadline = orDefault(c.RenewDeadline, DefaultRenewDeadline)
	c.RetryPeriod = orDefault(c.RetryPeriod, DefaultRetryPeriod)
	if c.LeaseDuration <= c.RenewDeadline || c.RenewDeadline <= c.RetryPeriod {
		return fmt.Errorf("leaderelection: need LeaseDuration (%s) > RenewDeadline (%s) > RetryPeriod (%s)",
			c.LeaseDuration, c.RenewDeadline, c.RetryPeriod)
	}
	if c.LeaseDuration%time.Second != 0 {
		return fmt.Errorf("leaderelection: LeaseDuration %s is not whole seconds, as the Lease stores it", c.LeaseDuration)
	}
	if c.Clock == nil {
		c.Clock = clock.Real{}
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	return nil
}

// orDefault is d, or def when d is not positive.
func orDefault(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}

// Elector campaigns for one Lease and leads while it holds it. Make one
// with New; its methods are safe for concurrent use.
type Elector struct {
	cfg    Config
	leases leases
	run    sync.Mutex // held by Run: one campaign at a time

	mu       sync.Mutex      // guards the fields below
	seen     sighting        // the Lease's record as last read or written, and since when
	lease    *Lease          // the Lease as last read or written (its resourceVersion)
	reported string          // the holder last given to OnNewLeader
	work     context.Context // OnStartedLeading's context; nil before the first lead
}

// New checks cfg and returns an Elector for it.
func New(cfg Config) (*Elector, error) {
	if err := cfg.defaults(); err != nil {
		return nil, err
	}
	return &Elector{cfg: cfg, leases: newLeases(cfg.Client, cfg.Namespace)}, nil
}

// Leader is the holder of the Lease as this candidate last observed it; ""
// when none was observed or the Lease was released.
func (e *Elector) Leader() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.seen.rec.holder
}

// IsLeader reports whether this candidate leads now: its OnStartedLeading
// context has not ended.
func (e *Elector) IsLeader() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.work != nil && e.work.Err() == nil
}

// LostError is the cause of the end of a leader's context, and the error
// Run returns when leadership was lost rather than given up.
type LostError struct {
	Identity string
	Lease    string    // namespace/name
	At       time.Time // when leadership ended, by the candidate's clock
	Reason   Reason
	Holder   string // with ReasonTaken: the holder found ("" if released or deleted)
}

func (e *LostError) Error() string {
	why := string(e.Reason)
	if e.Reason == ReasonTaken {
		why = fmt.Sprintf("%s (holder %q)", why, e.Holder)
	}
	return fmt.Sprintf("leaderelection: %s stopped leading lease %s at %s: %s",
		e.Identity, e.Lease, e.At.Format(time.RFC3339Nano), why)
}

// Reason says why leadership ended.
type Reason string

// The reasons of a LostError.
const (
	// ReasonCancelled: Run's context ended (Run then returns nil).
	ReasonCancelled Reason = "the elector's context ended"
	// ReasonNoRenewal: RenewDeadline passed, by this candidate's clock,
	// since the start of its last successful renewal.
	ReasonNoRenewal Reason = "no renewal succeeded within RenewDeadline"
	// ReasonLateRenewal: a renewal succeeded, but only after the deadline.
	ReasonLateRenewal Reason = "a renewal succeeded only after RenewDeadline"
	// ReasonTaken: the Lease names another holder, none, or is gone.
	ReasonTaken Reason = "the lease is no longer this candidate's"
)

func (e *Elector) lost(at time.Time, reason Reason) *LostError {
	return &LostError{Identity: e.cfg.Identity, Lease: e.leases.where(e.cfg.Name), At: at, Reason: reason}
}

// Run campaigns until this candidate acquires the Lease, then leads until
// leadership ends. It returns nil when ctx ended (after releasing the
// Lease unless KeepOnCancel), or the *LostError that ended leadership. It
// returns only after OnStartedLeading has returned. Run may be called
// again after it returned; the candidate then waits as any other would.
func (e *Elector) Run(ctx context.Context) error {
	e.run.Lock()
	defer e.run.Unlock()
	deadline, ok := e.campaign(ctx)
	if !ok {
		return nil
	}
	if ctx.Err() != nil {
		// Acquired as ctx ended: give it straight back, with no work to run.
		if !e.cfg.KeepOnCancel {
			e.release(ctx)
		}
		return nil
	}
	return e.lead(ctx, deadline)
}

// campaign tries to acquire the Lease until it does, and returns the end
// of the leadership that acquisition gives, or false when ctx ended.
func (e *Elector) campaign(ctx context.Context) (time.Time, bool) {
	for {
		if ctx.Err() != nil {
			return time.Time{}, false
		}
		deadline, wait, err := e.tryAcquire(ctx)
		e.report()
		if err != nil && ctx.Err() == nil {
			e.cfg.Logger.Warn("leaderelection: acquiring", "lease", e.leases.where(e.cfg.Name), "err", err)
		}
		if !deadline.IsZero() {
			return deadline, true
		}
		if clock.Sleep(ctx, e.cfg.Clock, wait) != nil {
			return time.Time{}, false
		}
	}
}

// report gives OnNewLeader a holder it has not been given yet. Nobody
// (a released Lease) is not a leader and is not reported.
func (e *Elector) report() {
	e.mu.Lock()
	h := e.seen.rec.holder
	fresh := h != "" && h != e.reported
	if fresh {
		e.reported = h
	}
	e.mu.Unlock()
	if fresh && e.cfg.OnNewLeader != nil {
		e.cfg.OnNewLeader(h)
	}
}
