package reliability

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/apiclient"
	"github.com/zerokube/zerokube/fakeapiserver"
	"github.com/zerokube/zerokube/fakeapiserver/fakeapiservertest"
	"github.com/zerokube/zerokube/informer"
	"github.com/zerokube/zerokube/informer/observe"
	"github.com/zerokube/zerokube/kubeproto"
	"github.com/zerokube/zerokube/meta"
	"github.com/zerokube/zerokube/shard"
)

const (
	matrixLabel   = "m" // the informer selects matrixLabel=in
	transformKey  = "t" // Transform sets data[transformKey] = transformMark
	transformMark = "x" //
	matrixNames   = 30  // objects are m-0 … m-29
	matrixSeeded  = 20  // created before the informer starts
	// unhealthyWithin bounds how long an informer that cannot reach the
	// server may look healthy: at this backoff, dozens of failed attempts.
	// StaleAfter keeps its default (3 minutes): an unreachable server is
	// known at the first failed request, not only once the cache is old.
	unhealthyWithin = 2 * time.Second
	matrixWait      = 20 * time.Second // bound of every wait for the informer
	badName         = "bad"            // the undecodable object, with SkipUndecodable
)

// mcase is one combination being run: a fake server, the informer under
// test with its handler, and what the oracle needs.
type mcase struct {
	c        combo
	rnd      *rand.Rand
	srv      *fakeapiserver.Server
	net      *netGate
	client   *apiclient.Client
	dir      string            // snapshots
	bad      string            // the key of the undecodable object, with SkipUndecodable
	snap     map[string]string // key → resourceVersion of the snapshot's objects (resumed, expired)
	shards   []shard.Selector  // every shard the informer held
	sh       *informer.Shard   // the informer's, nil for shardNone
	inf      *informer.Informer[object, *object]
	h        *mview
	o        oracle
	progress *signal

	mu        sync.Mutex // guards causes
	causes    []observe.RelistCause
	watchErrs atomic.Int64 // WatchErrorHandler calls
	lastErr   atomic.Pointer[string]
	added     atomic.Bool  // the handler is registered
	wrongWire atomic.Int64 // lists and watches that did not ask for the combination's wire
}

func runCase(t *testing.T, c combo, seed uint64, tot *matrixTotals) {
	m := &mcase{c: c, rnd: rand.New(rand.NewPCG(seed, 25)), progress: newSignal(), dir: t.TempDir()}
	m.start(t)
	for i := range matrixSeeded {
		m.put(t, fmt.Sprintf("m-%d", i), "in", "0")
	}
	if c.skip {
		m.putUndecodable(t)
	}
	if c.snap != snapOff {
		m.prepareSnapshot(t)
	}
	m.script(t)
	for _, n := range m.srv.Stats().Faults {
		tot.faults.Add(n)
	}
	m.o.verdict(t, c, tot)
}

// putUndecodable stores an object the type cannot decode, in every shard
// the informer will hold (so that it must be skipped, not filtered): uids
// are the server's, so it tries until one fits and deletes the others.
// It is a valid ConfigMap, which kube-apiserver stores too, whose binary
// data the type's blob refuses: undecodable on either wire.
func (m *mcase) putUndecodable(t *testing.T) {
	for i := 0; ; i++ {
		name := fmt.Sprintf("%s-%d", badName, i)
		raw, err := m.srv.Create(cmGVR, map[string]any{"metadata": map[string]any{"name": name, "namespace": "default",
			"labels": map[string]string{matrixLabel: "in"}}, "binaryData": map[string][]byte{"b": make([]byte, 2*maxBlob)}})
		require.NoError(t, err)
		if !slices.ContainsFunc(m.shards, func(s shard.Selector) bool { return !s.Contains(&raw.ObjectMeta) }) {
			m.bad = "default/" + name
			return
		}
		require.NoError(t, m.srv.Delete(cmGVR, "default", name))
	}
}

func (m *mcase) start(t *testing.T) {
	t.Helper()
	m.srv = fakeapiservertest.Start(t, fakeapiserver.Options{Logger: quiet(), BookmarkInterval: 20 * time.Millisecond,
		TooLargeWait: 100 * time.Millisecond, ShardedListAndWatch: m.c.shard == shardServer || m.c.shard == shardSet,
		Intercept: func(r *http.Request, verb string) error {
			// Lists and watches only: a snapshot's cluster id is a GET of
			// the kube-system namespace, in JSON.
			if (verb == "list" || verb == "watch") && strings.Contains(r.Header.Get("Accept"), kubeproto.ContentType) == m.c.json {
				m.wrongWire.Add(1)
			}
			m.progress.fire()
			return nil
		}})
	m.net = newNetGate()
	tr := &http.Transport{DialContext: m.net.dial}
	t.Cleanup(tr.CloseIdleConnections)
	var err error
	m.client, err = apiclient.NewWithOptions(fakeapiservertest.ClientConfig(m.srv),
		apiclient.Options{Logger: quiet(), Transport: tr, Retry: apiclient.RetryOptions{MaxAttempts: 1}})
	require.NoError(t, err)
	if m.c.shard != shardNone {
		m.shards = []shard.Selector{mustShard(t, 0, 2)}
		if m.c.shard == shardSet {
			m.shards = append(m.shards, mustShard(t, 1, 3)) // half of it is new, a third of the old is dropped
		}
	}
}

func mustShard(t *testing.T, i, n int) shard.Selector {
	sel, err := shard.Of(i, n)
	require.NoError(t, err)
	return sel
}

// options are the informer's options for the combination.
func (m *mcase) options(t *testing.T, name string) informer.Options[*object] {
	// No fault stalls a watch here: a short Watch.IdleTimeout (which also
	// bounds the wait for a watch's answer) would only fire under load.
	o := informer.Options[*object]{
		Name:          name,
		Backoff:       chaosBackoff,
		LabelSelector: matrixLabel + "=in",
		Sync: informer.SyncOptions{
			StreamingList:        m.c.streaming,
			InitialEventsTimeout: 2 * time.Second,
			StallTimeout:         2 * time.Second,
		},
		Watch: informer.WatchOptions{
			MinTimeout:  time.Second,
			IdleTimeout: 2 * time.Second,
		},
		Decode:  informer.DecodeOptions[*object]{SkipUndecodable: m.c.skip},
		Process: informer.ProcessOptions{DeltaFIFO: m.c.deltaFIFO},
		Observe: informer.ObserveOptions{Logger: quiet()},
	}
	if m.c.transform {
		o.Decode.Transform = transform
	}
	o.Transport.JSON = m.c.json
	if m.c.snap != snapOff {
		o.Snapshot = informer.SnapshotOptions{Dir: m.dir, Period: -1}
	}
	if m.c.shard != shardNone {
		sh, err := informer.NewShard(m.shards[0])
		require.NoError(t, err)
		o.Shard = sh
	}
	return o
}

func transform(o *object) (*object, error) {
	d := maps.Clone(o.Data)
	if d == nil {
		d = map[string]string{}
	}
	d[transformKey] = transformMark
	o.Data = d
	return o, nil
}

// prepareSnapshot runs the same informer once to write a snapshot, then
// changes the server while it is down: the resumed watch (or the relist)
// must deliver exactly those changes.
func (m *mcase) prepareSnapshot(t *testing.T) {
	t.Helper()
	inf := informer.New[object](m.client, allCMs, m.options(t, "matrix"))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- inf.Run(ctx) }()
	wctx, wcancel := context.WithTimeout(ctx, matrixWait)
	err := inf.WaitForSync(wctx)
	wcancel()
	cancel()
	require.NoError(t, err, "the first run's sync")
	require.NoError(t, <-done, "the first run")
	m.snap = storeState(inf)
	m.put(t, "m-1", "in", "downtime")
	require.NoError(t, m.srv.Delete(cmGVR, "default", "m-2"))
	m.put(t, "m-down", "in", "0")
	switch m.c.snap {
	case snapExpired:
		m.srv.Compact(0)
	case snapCorrupt:
		files, err := filepath.Glob(filepath.Join(m.dir, "*"))
		require.NoError(t, err)
		require.NotEmpty(t, files, "the first run saved no snapshot")
		for _, f := range files {
			b, err := os.ReadFile(f)
			require.NoError(t, err)
			b[len(b)/2] ^= 0x5a
			require.NoError(t, os.WriteFile(f, b, 0o600))
		}
		m.snap = nil
	}
}

// script runs the informer under test through the faults.
func (m *mcase) script(t *testing.T) {
	hopts := m.newInformer(t)
	if m.c.handler != handlerLate {
		m.addHandler(t, hopts)
	}
	offline := m.c.startsOffline()
	if offline {
		m.net.set(true)
	}
	runInformer(t, m.inf)
	ctx, cancel := context.WithTimeout(context.Background(), matrixWait)
	defer cancel()
	require.NoError(t, m.inf.WaitForSync(ctx), "sync")
	if offline {
		m.expectUnhealthy(checkUnhealthyRestart, "restarted from a snapshot with the server unreachable")
		m.net.set(false)
	} else {
		m.cleanSync(t)
	}
	m.writes(t, 5)
	m.watchFault(func() { m.srv.DropWatches() })
	m.writes(t, 5)
	m.watchFault(func() { m.srv.CutWatches() })
	m.writes(t, 5)
	m.watchFault(func() {
		m.srv.FailNext(fakeapiserver.Failure{Count: 2, Code: 500})
		m.srv.DropWatches()
	})
	m.writes(t, 5)
	if m.c.handler == handlerLate {
		m.addHandler(t, hopts)
	}
	m.watchFault(func() { m.srv.Compact(0); m.srv.DropWatches() }) // 410: a relist
	m.writes(t, 5)
	m.watchFault(func() { m.srv.InjectMalformedEvent() })
	m.writes(t, 5)
	if m.c.streaming {
		m.watchFault(func() { m.srv.CutStreamingLists(1); m.srv.Compact(0); m.srv.DropWatches() })
		m.writes(t, 3)
	}
	// The relist's reply trickles (issue 31 item 1): abandoned after
	// StallTimeout (InitialEventsTimeout for a streaming list), retried.
	m.watchFault(func() { m.srv.SlowBodies(m.relistFault(20)); m.relistNext() })
	m.landed(t, fakeapiserver.FaultSlowBody, m.watchErrs.Load())
	m.writes(t, 3)
	if m.streamsRelists() {
		// A streaming list that cannot be decoded: LIST this once (item 9).
		errs := m.watchErrs.Load()
		m.watchFault(func() {
			m.srv.CorruptBodies(fakeapiserver.CorruptBody{Count: 1, Verb: "watch", QueryContains: "sendInitialEvents=true", After: 4})
			m.relistNext()
		})
		m.landed(t, fakeapiserver.FaultCorruptBody, errs)
		m.writes(t, 3)
	}
	m.checkCache()
	if m.c.shard == shardSet {
		m.reshard(t)
	}
	m.outage(t)
	m.srv.ClearFaults()
	m.final(t)
}

// streamsRelists: the informer relists by streaming lists. With
// SkipUndecodable the undecodable object turns it to LIST for good.
func (m *mcase) streamsRelists() bool { return m.c.streaming && !m.c.skip }

// relistFault is the next relist's reply trickling after `after` bytes, 4
// bytes a second: a LIST, or a streaming list.
func (m *mcase) relistFault(after int) fakeapiserver.SlowBody {
	f := fakeapiserver.SlowBody{Count: 1, Verb: "list", After: after, Every: 250 * time.Millisecond}
	if m.streamsRelists() {
		f.Verb, f.QueryContains = "watch", "sendInitialEvents=true"
	}
	return f
}

// relistNext makes the informer relist: its watch ends, and the next one
// is answered 410.
func (m *mcase) relistNext() {
	m.srv.FailNext(fakeapiserver.Failure{Count: 1, Code: 410, Verb: "watch"})
	m.srv.DropWatches()
}

// landed waits for the relist to meet a fault of kind, armed for it, and
// for the informer to report it (errs: WatchErrorHandler calls before the
// fault; the 410 is one, the fault another), so that what follows (an
// outage, a reshard that must cause no failure) finds it over.
func (m *mcase) landed(t *testing.T, kind fakeapiserver.Fault, errs int64) {
	require.Eventually(t, func() bool { return m.srv.Stats().Faults[kind] > 0 && m.watchErrs.Load() >= errs+2 },
		matrixWait, time.Millisecond, "the relist meets the %s fault", kind)
}

// newInformer builds the informer under test and its handler (not yet
// added), and returns the handler's options.
func (m *mcase) newInformer(t *testing.T) informer.HandlerOptions {
	opts := m.options(t, "matrix")
	m.sh = opts.Shard
	opts.Observe.Trace = m.trace
	opts.Observe.WatchErrorHandler = func(_ context.Context, err error) {
		msg := err.Error()
		m.lastErr.Store(&msg)
		m.watchErrs.Add(1)
	}
	m.inf = informer.New[object](m.client, allCMs, opts)
	m.h = &mview{view: newView("matrix", 0), m: m}
	m.h.changed = m.progress
	return informer.HandlerOptions{Synchronous: m.c.handler == handlerSync}
}

func (m *mcase) addHandler(t *testing.T, hopts informer.HandlerOptions) {
	_, err := m.inf.AddHandler(m.h, hopts)
	require.NoError(t, err)
	m.added.Store(true)
}

// cleanSync: with no fault yet, the sync reports no failure (an expired
// snapshot's 410 is one, as in client-go).
func (m *mcase) cleanSync(t *testing.T) {
	m.converge(t, "after the sync", false)
	if n := m.watchErrs.Load(); n > 0 && m.c.snap != snapExpired {
		m.o.fail(checkCleanSync, "%d WatchErrorHandler calls before any fault, the last: %s", n, *m.lastErr.Load())
	}
}

// startsOffline: the informer restarts from its snapshot while the server
// is unreachable, and must not look healthy. A resumed one always; an
// expired one only with Transform (an arbitrary pick that pairwise covers
// both ways), so that the plain reconciling relist, with the server up
// from the start, is run too.
func (c combo) startsOffline() bool {
	return c.snap == snapResumed || (c.snap == snapExpired && c.transform)
}

// watchFault waits for the informer's watch (so that the fault lands on
// it), then injects.
func (m *mcase) watchFault(inject func()) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = m.srv.AwaitWatchers(ctx, 1) // no watch in time: the fault lands elsewhere, still a fault
	inject()
}

// reshard moves the shard while nothing else fails: what follows must be a
// planned relist, not a failure.
func (m *mcase) reshard(t *testing.T) {
	m.srv.ClearFaults() // a fault still armed (a streaming list to cut) would land on the planned relist
	m.converge(t, "before Shard.Set", false)
	before := m.watchErrs.Load()
	require.NoError(t, m.sh.Set(m.shards[1]))
	m.writes(t, 3)
	m.converge(t, "after Shard.Set", false)
	if n := m.watchErrs.Load() - before; n > 0 {
		m.o.fail(checkReshard, "Shard.Set caused %d WatchErrorHandler calls, the last: %s", n, *m.lastErr.Load())
	}
}

// outage makes the server unreachable (connections cut, new ones refused)
// while it goes on changing; the informer must turn unhealthy.
func (m *mcase) outage(t *testing.T) {
	m.net.set(true)
	m.srv.Restart()
	m.writes(t, 3)
	m.expectUnhealthy(checkUnhealthy, "server unreachable")
	m.net.set(false)
}

func (m *mcase) expectUnhealthy(check, why string) {
	if !m.await(func() bool { return !m.inf.Health().Healthy() }, unhealthyWithin) {
		m.o.fail(check, "%s: still healthy after %s: %+v", why, unhealthyWithin, m.inf.Health())
	}
}

// final checks the end state, once the informer has caught up.
func (m *mcase) final(t *testing.T) {
	m.converge(t, "after the faults", true)
	m.checkCache()
	if !m.inf.Health().Healthy() {
		m.o.fail(checkHealthy, "not healthy after the faults cleared: %+v", m.inf.Health())
	}
	if m.h.anomalies.Load() > 0 || m.h.rvBack.Load() > 0 {
		m.o.fail(checkHistory, "%s", m.h.bad())
	}
	if m.c.skip && !slices.ContainsFunc(m.inf.Undecodable(), func(u informer.UndecodableObject) bool {
		return u.Key == m.bad && u.Path == "/binaryData/b" && errors.Is(u.Err, errBlobTooLarge)
	}) {
		m.o.fail(checkUndecodable, "Undecodable() = %v, want %s at /binaryData/b (relists %v)", m.inf.Undecodable(), m.bad, m.relists())
	}
	if n := m.wrongWire.Load(); n > 0 {
		m.o.fail(checkWire, "%d lists or watches asked for another wire than %s", n, map[bool]string{true: "JSON", false: "protobuf"}[m.c.json])
	}
	// A handler there at the start hears of every object of a loaded
	// snapshot through OnSnapshotAdd (a late one gets the cache replayed).
	if m.snap != nil && m.c.handler != handlerLate && m.h.snapAdds.Load() != int64(len(m.snap)) {
		m.o.fail(checkSnapAdds, "%d snapshot adds for a snapshot of %d objects", m.h.snapAdds.Load(), len(m.snap))
	}
	causes := m.relists()
	expired := slices.Index(causes, observe.CauseSnapshotExpired)
	incomplete := m.c.skip && (m.c.snap == snapResumed || m.c.snap == snapExpired)
	switch {
	case incomplete && (len(causes) == 0 || causes[0] != observe.CauseSnapshotIncomplete):
		// Saved while an object was skipped: not resumed, relisted to ask
		// for it again (informer/doc.go, "Warm restart").
		m.o.fail(checkExpired, "relists %v: the first should be %s", causes, observe.CauseSnapshotIncomplete)
	case !incomplete && m.c.snap == snapExpired && (len(causes) == 0 || causes[0] != observe.CauseSnapshotExpired):
		m.o.fail(checkExpired, "relists %v: the first should be %s", causes, observe.CauseSnapshotExpired)
	case m.c.snap != snapExpired && expired >= 0:
		m.o.fail(checkResume, "relists %v: a %s relist with a snapshot %s", causes, observe.CauseSnapshotExpired, snapNames[m.c.snap])
	}
}

// converge waits until the cache and the handler hold the server's objects
// for the shard and selector (and, when asked, the informer is healthy).
func (m *mcase) converge(t *testing.T, when string, healthy bool) {
	var want state
	ok := m.await(func() bool {
		want = m.want(t)
		got := storeState(m.inf)
		return diff(want, got) == "" && (!m.added.Load() || diff(want, m.h.snapshot()) == "") && (!healthy || m.inf.Health().Healthy())
	}, matrixWait)
	if !ok {
		m.o.fail(checkConverge, "%s: not within %s: cache %s; handler %s; health %+v; relists %v", when, matrixWait,
			diff(want, storeState(m.inf)), diff(want, m.h.snapshot()), m.inf.Health(), m.relists())
	}
}

// want is the server's objects that the informer must hold.
func (m *mcase) want(t *testing.T) state {
	items, _, err := m.srv.List(cmGVR, "default")
	require.NoError(t, err)
	out := state{}
	for _, r := range items {
		var o object
		if r.DecodeInto(&o) != nil || o.Labels[matrixLabel] != "in" {
			continue // the undecodable object, or not selected
		}
		if len(m.shards) > 0 && !m.sh.Selector().Contains(&o.ObjectMeta) {
			continue
		}
		out[meta.Key(&o)] = o.ResourceVersion
	}
	return out
}

// foreign: o belongs to none of the shards the informer held.
func (m *mcase) foreign(o *object) bool {
	if len(m.shards) == 0 {
		return false
	}
	return !slices.ContainsFunc(m.shards, func(s shard.Selector) bool { return s.Contains(&o.ObjectMeta) })
}

// await waits for cond; health turns stale with time alone, not with an
// event, hence the periodic re-check.
func (m *mcase) await(cond func() bool, d time.Duration) bool {
	return awaitOn(m.progress, cond, d, 50*time.Millisecond)
}

func (m *mcase) relists() []observe.RelistCause {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.causes)
}

func (m *mcase) trace(ev observe.Event) {
	if ev.Stage == observe.StageRelist {
		m.mu.Lock()
		m.causes = append(m.causes, ev.Cause)
		m.mu.Unlock()
	}
	m.progress.fire()
}

// writes makes n random changes: creates, updates, label changes moving an
// object in and out of the selector, deletes.
func (m *mcase) writes(t *testing.T, n int) {
	for range n {
		name := fmt.Sprintf("m-%d", m.rnd.IntN(matrixNames))
		cur, err := m.srv.Get(cmGVR, "default", name)
		if err != nil {
			require.True(t, meta.IsNotFound(err), "%v", err)
			m.put(t, name, []string{"in", "in", "out"}[m.rnd.IntN(3)], "0")
			continue
		}
		var o object
		require.NoError(t, cur.DecodeInto(&o))
		switch r := m.rnd.IntN(10); {
		case r < 5:
			m.put(t, name, o.Labels[matrixLabel], fmt.Sprint(m.rnd.Int()))
		case r < 7:
			m.put(t, name, map[string]string{"in": "out", "out": "in"}[o.Labels[matrixLabel]], o.Data["v"])
		default:
			require.NoError(t, m.srv.Delete(cmGVR, "default", name))
		}
	}
}

// put creates or updates default/name.
func (m *mcase) put(t *testing.T, name, label, v string) {
	obj := map[string]any{"metadata": map[string]any{"name": name, "namespace": "default",
		"labels": map[string]string{matrixLabel: label}}, "data": map[string]string{"v": v}}
	var err error
	if _, gerr := m.srv.Get(cmGVR, "default", name); gerr == nil {
		_, err = m.srv.Update(cmGVR, obj)
	} else {
		_, err = m.srv.Create(cmGVR, obj)
	}
	require.NoError(t, err)
}
