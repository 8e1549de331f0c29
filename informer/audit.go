package informer

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/zerokube/zerokube/clock"
	"github.com/zerokube/zerokube/informer/observe"
	"github.com/zerokube/zerokube/meta"
	"github.com/zerokube/zerokube/shard"
)

// AuditOptions turn on the cache audit: once a period the informer asks
// the server for the identity (namespace, name, uid, resourceVersion) of
// every object it selects, at exactly the resourceVersion the cache is in
// step with, and compares each with the cache. A watch event lost on the
// way (a proxy, a bug) leaves the cache silently different from the
// server, and the agent acting on it does the wrong thing; the audit says
// so (the audited and audit-difference trace stages, Metrics.Audit, a log
// line, Health.Audit and Health.Diverged) and, with Repair, relists.
// client-go's consistency detector does the same comparison in CI only,
// and panics; this one is meant for production. The zero value is off.
//
// What an audit costs the server is one paged LIST of object metadata at
// an exact resourceVersion (a meta.k8s.io/v1 PartialObjectMetadataList,
// in protobuf for every resource): on kube-apiserver v1.37.2 at 10,000
// pods, 0.6 to 0.9 of a relist's CPU (docs/internals.md, "The cache audit
// finds what the watch lost").
type AuditOptions struct {
	// Period between two audits; 0 (the default) is no audit. The first
	// audit comes at a random point of the first period, the next ones a
	// Period apart, so a fleet of agents started together spreads its
	// audits over the period, and a difference is found within one
	// Period of its cause. An informer not yet synced, or whose queue
	// does not drain within a second, skips that period's audit.
	Period time.Duration
	// Repair relists when an audit finds a difference (observe.CauseAudit).
	// Off: the difference is reported, and Health is unhealthy
	// (Diverged) until a list replaces the cache.
	Repair bool
	// PageSize is the limit of the audit's LIST pages; default 500.
	PageSize int64
}

func (o AuditOptions) enabled() bool { return o.Period > 0 }

// maxAuditKeys bounds the keys an AuditDifference names: the trace has
// every one (audit-difference), the log line and Health a few.
const maxAuditKeys = 10

// AuditDifference is what an audit found different between the cache and
// the server's list at ResourceVersion: the error of the audited trace
// stage, and Health.Audit.Difference.
type AuditDifference struct {
	ResourceVersion string
	// Missing: objects the server has and the cache lacks (a lost ADDED).
	Missing int
	// Extra: objects the cache has and the server does not (a lost DELETED).
	Extra int
	// Stale: objects both have, at another resourceVersion or uid (a lost
	// MODIFIED, or a delete and create again).
	Stale int
	// Keys names up to 10 of them, "namespace/name".
	Keys []string
}

func (d *AuditDifference) Error() string {
	more := ""
	if n := d.Missing + d.Extra + d.Stale; n > len(d.Keys) {
		more = fmt.Sprintf(", and %d more", n-len(d.Keys))
	}
	return fmt.Sprintf("informer: the cache differs from the server at resourceVersion %s: %d missing, %d extra, %d stale (%s%s)",
		d.ResourceVersion, d.Missing, d.Extra, d.Stale, strings.Join(d.Keys, ", "), more)
}

// AuditResult is the last cache audit (Health.Audit).
type AuditResult struct {
	// At is when the audit began; Took how long it took.
	At   time.Time
	Took time.Duration
	// ResourceVersion is the one the cache was compared at.
	ResourceVersion string
	// Listed counts the objects the server listed.
	Listed int
	// Difference is what differed; nil when the cache and the server
	// agree, or the audit could not compare.
	Difference *AuditDifference
	// Err says why the audit could not compare; a 410 (meta.IsGone)
	// means the resourceVersion is older than the server serves exact
	// lists at, and the next period tries again. Nil when it compared.
	Err error

	lists uint64 // the consistent point's lists when captured: Diverged ends with the next
}

// audit is the cache audit (AuditOptions). It runs beside the data path on
// a goroutine of its own: each period it captures the cache and the
// resourceVersion it is in step with at the pipeline's consistent point
// (the reflector's writes wait, the queue drains: the cache is then the
// server's state at rv), lets the data path go on, lists at exactly rv and
// compares. Objects changed after rv need no care: the list is at rv too.
type audit[P meta.Object] struct {
	opts   AuditOptions
	point  *consistentPoint[P]
	list   auditLister  // one page of identities; New makes it metadata-only (auditVia)
	repair *repairLW[P] // nil without Repair
	rec    *record      // the objects the last list skipped: the cache lacks them on purpose
	obs    observers
	clock  clock.Clock
	rand   func() float64
	hasUID bool // P has a uid to compare

	mu   sync.Mutex   // guards last and diff
	last *AuditResult // the last audit's, compared or not
	diff *AuditResult // the last audit that compared and found a difference; nil once one found none
}

// newAudit returns the audit of the cache behind c, listing through lw
// (the ListerWatcher below the shard filter: the audit filters by the
// shard the cache holds itself) until New hands it a metadata-only lister.
// repair is the stage that relists on request; nil without Repair.
func newAudit[P meta.Object](o Options[P], c *consistentPoint[P], lw ListerWatcher[P], repair *repairLW[P], rec *record) *audit[P] {
	ao := o.Audit
	if ao.PageSize <= 0 {
		ao.PageSize = 500
	}
	var zero P
	_, hasUID := any(zero).(interface{ GetUID() string })
	return &audit[P]{opts: ao, point: c, list: listerOf(lw), repair: repair, rec: rec,
		obs: observersOf(o), clock: o.Clock, rand: o.Rand, hasUID: hasUID}
}

// run audits once a period until ctx ends.
func (a *audit[P]) run(ctx context.Context) {
	wait := time.Duration(a.rand() * float64(a.opts.Period))
	for {
		t := a.clock.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C():
		}
		start := a.clock.Now()
		a.once(ctx)
		wait = max(a.opts.Period-a.clock.Now().Sub(start), 0)
	}
}

// once runs one audit: nothing before the first list, a failure when the
// queue does not drain or the list fails, else the comparison. With Repair
// a difference makes the reflector relist.
func (a *audit[P]) once(ctx context.Context) {
	start := a.clock.Now()
	cp, err := a.point.capture(ctx, true)
	if errors.Is(err, errNotListed) || ctx.Err() != nil {
		return
	}
	res := &AuditResult{At: start, ResourceVersion: cp.rv, lists: cp.lists}
	if err == nil {
		res.Listed, res.Difference, err = a.compare(ctx, cp)
	}
	if ctx.Err() != nil {
		return // stopping: the list was cut short by us, not the server
	}
	res.Took, res.Err = a.clock.Now().Sub(start), err
	a.mu.Lock()
	a.last = res
	if err == nil {
		// An audit that could not compare (a 410) says nothing of a
		// difference found before it: that stands until a list.
		a.diff = nil
		if res.Difference != nil {
			a.diff = res
		}
	}
	a.mu.Unlock()
	if err != nil {
		a.obs.emit(observe.Event{Stage: observe.StageAuditFailed, ResourceVersion: cp.rv, Duration: res.Took, Err: err})
		return
	}
	ev := observe.Event{Stage: observe.StageAudited, Items: res.Listed, ResourceVersion: cp.rv, Duration: res.Took}
	if res.Difference != nil {
		ev.Err = res.Difference
	}
	a.obs.emit(ev)
	if res.Difference != nil && a.repair != nil {
		a.repair.request()
	}
}

// identity is what an audit compares of one object.
type identity struct{ uid, rv string }

// compare lists at exactly cp.rv, page by page, and compares every object
// of the shard the cache holds with the cache. Each difference is traced
// as it is found.
func (a *audit[P]) compare(ctx context.Context, cp captured[P]) (int, *AuditDifference, error) {
	cached := make(map[string]identity, len(cp.items))
	for _, o := range cp.items {
		cached[meta.Key(o)] = identity{uid: uidOf(o), rv: o.GetResourceVersion()}
	}
	keep, shardSel, err := shardFilter(cp.shard)
	if err != nil {
		return 0, nil, err
	}
	skipped := map[string]bool{}
	for _, u := range a.rec.undecodable() {
		skipped[u.Key] = true
	}
	d := &AuditDifference{ResourceVersion: cp.rv}
	differ := func(key, rv string, op observe.Op) {
		switch op {
		case observe.OpMissing:
			d.Missing++
		case observe.OpExtra:
			d.Extra++
		case observe.OpStale:
			d.Stale++
		}
		if len(d.Keys) < maxAuditKeys {
			d.Keys = append(d.Keys, key)
		}
		a.obs.emit(observe.Event{Stage: observe.StageAuditDifference, Key: key, Op: op, ResourceVersion: rv})
	}
	listed := 0
	err = a.listExact(ctx, cp.rv, shardSel, func(o auditObject) error {
		if !keep(o) {
			return nil
		}
		listed++
		key := o.key()
		c, ok := cached[key]
		switch {
		case !ok && !skipped[key]:
			differ(key, o.Metadata.ResourceVersion, observe.OpMissing)
		case !ok:
		case c.rv != o.Metadata.ResourceVersion || (a.hasUID && c.uid != o.Metadata.UID):
			differ(key, o.Metadata.ResourceVersion, observe.OpStale)
		}
		delete(cached, key)
		return nil
	})
	if err != nil {
		return listed, nil, err
	}
	for key, c := range cached {
		differ(key, c.rv, observe.OpExtra)
	}
	if d.Missing+d.Extra+d.Stale == 0 {
		return listed, nil, nil
	}
	return listed, d, nil
}

// listExact hands each object of the list at exactly rv to each, page by
// page: the first page asks for rv with resourceVersionMatch=Exact, the
// next ones follow the continue token, which keeps the list at rv.
func (a *audit[P]) listExact(ctx context.Context, rv, shardSel string, each func(auditObject) error) error {
	o := ListRequest{ResourceVersion: rv, ResourceVersionMatch: meta.MatchExact, Limit: a.opts.PageSize, ShardSelector: shardSel}
	seen := map[string]bool{}
	for page := 1; ; page++ {
		lm, err := a.list(ctx, o, each)
		if err != nil {
			return fmt.Errorf("informer: audit: list at exactly rv %q, page %d: %w", rv, page, err)
		}
		if page == 1 && lm.ResourceVersion != "" && lm.ResourceVersion != rv {
			// A server (or a proxy's cache) that ignored Exact: comparing
			// another state with the cache would report a difference that
			// is none.
			return fmt.Errorf("informer: audit: asked for a list at exactly rv %q, the server answered at %q", rv, lm.ResourceVersion)
		}
		if lm.Continue == "" {
			return nil
		}
		if seen[lm.Continue] {
			return fmt.Errorf("informer: audit: list at exactly rv %q, page %d: %w", rv, page, errContinueLoop)
		}
		seen[lm.Continue] = true
		o = ListRequest{Limit: a.opts.PageSize, Continue: lm.Continue, ShardSelector: shardSel}
	}
}

// shardFilter keeps the objects of the shard sel (a selector, "" for
// none) and returns it to send as shardSelector: the shard filter stage
// drops the others from the cache whichever side filtered.
func shardFilter(sel string) (func(auditObject) bool, string, error) {
	if sel == "" {
		return func(auditObject) bool { return true }, "", nil
	}
	s, err := shard.Parse(sel)
	if err != nil {
		return nil, "", fmt.Errorf("informer: audit: the cache's shard: %w", err)
	}
	return func(o auditObject) bool {
		v := o.Metadata.UID
		if s.Field == shard.Namespace {
			v = o.Metadata.Namespace
		}
		return s.ContainsHash(shard.Hash(v))
	}, sel, nil
}

// uidOf is o's uid, "" when its type has none.
func uidOf[P meta.Object](o P) string {
	if u, ok := any(o).(interface{ GetUID() string }); ok {
		return u.GetUID()
	}
	return ""
}

// result is the last audit's, nil before any, and whether the cache has
// diverged: an audit found a difference (the last that compared) and no
// list has replaced the cache since.
func (a *audit[P]) result() (*AuditResult, bool) {
	if a == nil {
		return nil, false
	}
	a.mu.Lock()
	last, diff := a.last, a.diff
	a.mu.Unlock()
	return last, diff != nil && !a.point.listsSince(diff.lists)
}
