package informer_test

import (
	"context"
	"fmt"
	"hash/crc32"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/apiclient"
	"github.com/zerokube/zerokube/informer"
	"github.com/zerokube/zerokube/informer/observe"
	"github.com/zerokube/zerokube/snapshot"
)

// history is a handler that records every notification as a line, e.g.
// "snapshot a=0", "add f=1", "update b 0→1", "delete c unknown=true", and
// keeps the state its notifications add up to.
type history struct {
	view
	mu    sync.Mutex
	lines []string
}

func newHistory() *history { return &history{view: *newView()} }

func (h *history) record(line string) {
	h.mu.Lock()
	h.lines = append(h.lines, line)
	h.mu.Unlock()
}

func (h *history) OnAdd(cm *configMap, initial bool) {
	h.view.OnAdd(cm, initial)
	h.record(fmt.Sprintf("add %s=%s initial=%t", cm.Name, cm.Data["v"], initial))
}

func (h *history) OnSnapshotAdd(cm *configMap) {
	h.view.OnAdd(cm, true)
	h.record(fmt.Sprintf("snapshot %s=%s", cm.Name, cm.Data["v"]))
}

func (h *history) OnUpdate(old, cm *configMap) {
	h.view.OnUpdate(old, cm)
	h.record(fmt.Sprintf("update %s %s→%s", cm.Name, old.Data["v"], cm.Data["v"]))
}

func (h *history) OnDelete(cm *configMap, unknown bool) {
	h.view.OnDelete(cm, unknown)
	h.record(fmt.Sprintf("delete %s unknown=%t", cm.Name, unknown))
}

// since returns the lines recorded after the first n, sorted.
func (h *history) since(n int) []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := slices.Clone(h.lines[n:])
	slices.Sort(out)
	return out
}

// traces records trace events by stage.
type traces struct {
	mu     sync.Mutex
	events []observe.Event
}

func (tr *traces) add(ev observe.Event) {
	tr.mu.Lock()
	tr.events = append(tr.events, ev)
	tr.mu.Unlock()
}

func (tr *traces) of(stage observe.Stage) []observe.Event {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	var out []observe.Event
	for _, ev := range tr.events {
		if ev.Stage == stage {
			out = append(out, ev)
		}
	}
	return out
}

// loads records SnapshotLoaded results.
type loads struct {
	observe.NopMetrics
	mu      sync.Mutex
	results []string
}

func (m *loads) SnapshotLoaded(r string) {
	m.mu.Lock()
	m.results = append(m.results, r)
	m.mu.Unlock()
}

// agent is one run of an informer with snapshots in dir.
type agent struct {
	e      *env
	inf    *informer.Informer[configMap, *configMap]
	h      *history
	tr     *traces
	m      *loads
	cancel context.CancelFunc
	done   chan error
}

func startAgent(t *testing.T, e *env, dir string, tweak func(*informer.Options[*configMap])) *agent {
	t.Helper()
	a := launchAgent(t, e, dir, tweak)
	synced(t, a.inf)
	return a
}

// launchAgent is startAgent without waiting for the informer to sync.
func launchAgent(t *testing.T, e *env, dir string, tweak func(*informer.Options[*configMap])) *agent {
	t.Helper()
	a := &agent{e: e, h: newHistory(), tr: &traces{}, m: &loads{}, done: make(chan error, 1)}
	opts := fastOpts()
	opts.Snapshot = informer.SnapshotOptions{Dir: dir, Period: -1}
	opts.Observe.Trace, opts.Observe.Metrics = a.tr.add, a.m
	if tweak != nil {
		tweak(&opts)
	}
	a.inf = informer.New[configMap](e.client, cmRef, opts)
	_, err := a.inf.AddHandler(a.h, informer.HandlerOptions{})
	require.NoError(t, err)
	var ctx context.Context
	ctx, a.cancel = context.WithCancel(context.Background())
	go func() { a.done <- a.inf.Run(ctx) }()
	t.Cleanup(a.stop)
	return a
}

// stop ends Run cleanly, which writes the final snapshot. Idempotent.
func (a *agent) stop() {
	if a.cancel == nil {
		return
	}
	a.cancel()
	<-a.done
	a.cancel = nil
}

// settled writes a marker object and waits for the cache and the handler to
// hold the server's state, marker included: every notification of what
// happened before has then been delivered. It returns the lines recorded
// after the first n, without the marker's.
func (a *agent) settled(t *testing.T, e *env, n int) []string {
	t.Helper()
	e.put(t, "zz-marker", "m", nil)
	converges(t, e, a.inf, &a.h.view)
	return slices.DeleteFunc(a.h.since(n), func(l string) bool { return l == "add zz-marker=m initial=false" })
}

func seed(t *testing.T, e *env, names ...string) {
	for _, n := range names {
		e.put(t, n, "0", nil)
	}
}

func snapshotLines(names ...string) []string {
	var out []string
	for _, n := range names {
		out = append(out, "snapshot "+n+"=0")
	}
	return out
}

func sorted(lines []string) []string {
	slices.Sort(lines)
	return lines
}

func bothModes(t *testing.T, test func(t *testing.T, streaming bool)) {
	for _, streaming := range []bool{false, true} {
		t.Run(fmt.Sprintf("streaming=%t", streaming), func(t *testing.T) { test(t, streaming) })
	}
}

func streamingOpt(streaming bool) func(*informer.Options[*configMap]) {
	return func(o *informer.Options[*configMap]) { o.Sync.StreamingList = streaming }
}

func TestRestartWithNothingChangedResumesWithoutAList(t *testing.T) {
	bothModes(t, func(t *testing.T, streaming bool) {
		e, dir := newEnv(t), t.TempDir()
		seed(t, e, "a", "b", "c")
		first := startAgent(t, e, dir, streamingOpt(streaming))
		require.Eventually(t, func() bool { return len(first.tr.of(observe.StageWatchOpened)) > 0 }, 10*time.Second, time.Millisecond)
		first.stop()
		require.Len(t, first.tr.of(observe.StageSnapshotSaved), 1, "a clean stop writes a snapshot")
		ended := first.tr.of(observe.StageWatchEnded)
		require.NotEmpty(t, ended)
		require.True(t, ended[len(ended)-1].Stopping, "the stop ended the watch, not the server: %+v", ended[len(ended)-1])
		require.ErrorIs(t, ended[len(ended)-1].Err, context.Canceled)
		require.Zero(t, first.tr.of(observe.StageSynced)[0].Op, "a list made the first sync")

		// The streaming run restarts with InlineProcessing: Run applies the
		// loaded snapshot itself, before the reflector starts.
		second := startAgent(t, e, dir, func(o *informer.Options[*configMap]) {
			o.Sync.StreamingList, o.Process.InlineProcessing = streaming, streaming
		})
		require.Equal(t, []string{"resumed"}, second.m.results)
		loaded := second.tr.of(observe.StageSnapshotLoaded)
		require.Len(t, loaded, 1)
		require.Equal(t, 3, loaded[0].Items)
		require.Equal(t, snapshotLines("a", "b", "c"), second.settled(t, e, 0)[:3])
		require.Empty(t, second.tr.of(observe.StageListPage), "no LIST")
		require.Empty(t, second.tr.of(observe.StageRelist), "no relist of any kind")
		require.Empty(t, second.tr.of(observe.StageReplace), "no streaming list either")
		opened := second.tr.of(observe.StageWatchOpened)
		require.NotEmpty(t, opened)
		require.Equal(t, loaded[0].ResourceVersion, opened[0].ResourceVersion, "the watch starts at the snapshot's rv")
		synced := second.tr.of(observe.StageSynced)
		require.Len(t, synced, 1)
		require.Equal(t, observe.OpSnapshot, synced[0].Op, "the snapshot, not a list, made the sync")
		require.Equal(t, loaded[0].ResourceVersion, synced[0].ResourceVersion, "the synced rv is the snapshot's, not empty")
	})
}

// restartAfterDowntime runs an agent over a, b, c and d, stops it, updates
// b, deletes c and creates f while it is down (then compacts the server's
// history if asked), and starts it again.
func restartAfterDowntime(t *testing.T, streaming, compact bool) *agent {
	e, dir := newEnv(t), t.TempDir()
	seed(t, e, "a", "b", "c", "d")
	startAgent(t, e, dir, streamingOpt(streaming)).stop()
	e.put(t, "b", "1", nil)
	require.NoError(t, e.srv.Delete(cmGVR, "default", "c"))
	e.put(t, "f", "1", nil)
	if compact {
		e.srv.Compact(0)
	}
	return startAgent(t, e, dir, streamingOpt(streaming))
}

// Objects added, changed and deleted while the agent was down arrive as
// exactly those differences: the watch from the snapshot's rv replays them.
func TestRestartAfterChangesDeliversExactlyTheDifferences(t *testing.T) {
	bothModes(t, func(t *testing.T, streaming bool) {
		second := restartAfterDowntime(t, streaming, false)
		require.Equal(t, sorted(append(snapshotLines("a", "b", "c", "d"),
			"add f=1 initial=false", "delete c unknown=false", "update b 0→1")), second.settled(t, second.e, 0))
		require.Empty(t, second.tr.of(observe.StageRelist))
	})
}

// When the downtime outlasted the server's history, the watch from the
// snapshot's rv gets 410: the informer relists (a streaming list in
// streaming mode) and Replace reconciles the cache: deletes as tombstones,
// changes as updates, unchanged objects as nothing.
func TestRestartAfterHistoryCompactedRelistsAndReconciles(t *testing.T) {
	bothModes(t, func(t *testing.T, streaming bool) {
		second := restartAfterDowntime(t, streaming, true)
		require.Equal(t, sorted(append(snapshotLines("a", "b", "c", "d"),
			"add f=1 initial=false", "delete c unknown=true", "update b 0→1")), second.settled(t, second.e, 0))
		relists := second.tr.of(observe.StageRelist)
		require.NotEmpty(t, relists)
		require.Equal(t, observe.CauseSnapshotExpired, relists[0].Cause)
		var tombstoned []string
		for _, ev := range second.tr.of(observe.StageHandlerCalled) {
			if ev.Op == observe.OpTombstone {
				tombstoned = append(tombstoned, ev.Key)
			}
		}
		require.Equal(t, []string{"default/c"}, tombstoned, "the handler call of a finalStateUnknown delete says so")
		require.Equal(t, streaming, relists[0].Streaming, "a streaming list in streaming mode")
	})
}

// A snapshot that cannot be used is reported with its reason and ignored:
// the informer lists as if there were none, and handlers get ordinary
// initial adds.
func TestABadSnapshotIsReportedAndIgnored(t *testing.T) {
	cases := []struct {
		reason string
		spoil  func(t *testing.T, path string)
		tweak  func(*informer.Options[*configMap])
	}{
		{"corrupt", func(t *testing.T, path string) {
			rewrite(t, path, func(b []byte) []byte { b[len(b)/2] ^= 1; return b })
		}, nil},
		{"truncated", func(t *testing.T, path string) { rewrite(t, path, func(b []byte) []byte { return b[:len(b)-10] }) }, nil},
		{"version", func(t *testing.T, path string) {
			rewrite(t, path, func(b []byte) []byte { return rewriteVersion(b, 9) })
		}, nil},
		{"identity", nil, func(o *informer.Options[*configMap]) { o.LabelSelector = "app=web" }},
	}
	for _, tc := range cases {
		t.Run(tc.reason, func(t *testing.T) {
			e, dir := newEnv(t), t.TempDir()
			seed(t, e, "a", "b")
			startAgent(t, e, dir, nil).stop()
			if tc.spoil != nil {
				tc.spoil(t, filepath.Join(dir, "v1_configmaps_in_namespace_default.snap"))
			}
			tweak := func(o *informer.Options[*configMap]) {
				o.Name = "v1/configmaps in namespace default" // the same file whatever the selector
				if tc.tweak != nil {
					tc.tweak(o)
				}
			}
			second := startAgent(t, e, dir, tweak)
			require.Equal(t, []string{tc.reason}, second.m.results)
			rejected := second.tr.of(observe.StageSnapshotRejected)
			require.Len(t, rejected, 1)
			reason, ok := snapshot.ReasonOf(rejected[0].Err)
			require.True(t, ok)
			require.Equal(t, tc.reason, reason.String())
			require.NotEmpty(t, second.tr.of(observe.StageRelist), "it lists instead")
			if tc.reason != "identity" {
				require.Equal(t, []string{"add a=0 initial=true", "add b=0 initial=true"}, second.settled(t, e, 0))
			}
		})
	}
}

func rewrite(t *testing.T, path string, f func([]byte) []byte) {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, f(b), 0o600))
}

// rewriteVersion sets a snapshot's format version, keeping its header
// checksum valid, as a future writer would have.
func rewriteVersion(b []byte, v uint32) []byte {
	b[8], b[9], b[10], b[11] = byte(v>>24), byte(v>>16), byte(v>>8), byte(v)
	n := int(b[12])<<24 | int(b[13])<<16 | int(b[14])<<8 | int(b[15])
	sum := crc32c(b[:16+n])
	b[16+n], b[17+n], b[18+n], b[19+n] = byte(sum>>24), byte(sum>>16), byte(sum>>8), byte(sum)
	return b
}

// While the informer runs, every snapshot it writes is the server's state
// at the snapshot's resourceVersion, however the writes interleave.
// With InlineProcessing too: the reflector then applies what it queued
// itself, and a snapshot waits for that as for the processing loop.
func TestEverySnapshotIsTheServersStateAtItsResourceVersion(t *testing.T) {
	for _, inline := range []bool{false, true} {
		t.Run(fmt.Sprintf("inline=%t", inline), func(t *testing.T) { testEverySnapshotIsTheServersState(t, inline) })
	}
}

func testEverySnapshotIsTheServersState(t *testing.T, inline bool) {
	e, dir := newEnv(t), t.TempDir()
	seed(t, e, "a", "b", "c")
	store := &recordingStore{Dir: snapshot.Dir{Path: dir, NoSync: true}}
	a := startAgent(t, e, dir, func(o *informer.Options[*configMap]) {
		o.Snapshot = informer.SnapshotOptions{Store: store, Period: 2 * time.Millisecond}
		o.Process.InlineProcessing = inline
	})
	for i := range 1000 {
		name := fmt.Sprintf("cm-%d", i%17)
		if i%5 == 4 {
			_ = e.srv.Delete(cmGVR, "default", name)
			continue
		}
		e.put(t, name, fmt.Sprint(i), nil)
	}
	a.settled(t, e, 0)
	a.stop()
	saved := store.all()
	require.NotEmpty(t, saved)
	t.Logf("%d snapshots checked", len(saved))
	for rv, state := range saved {
		require.Equal(t, serverStateAt(t, e, rv), state, "snapshot at rv %s", rv)
	}
}

func crc32c(b []byte) uint32 { return crc32.Checksum(b, crc32.MakeTable(crc32.Castagnoli)) }

// recordingStore is a Dir that decodes every snapshot saved into it: rv →
// name → value.
type recordingStore struct {
	snapshot.Dir
	mu    sync.Mutex
	saved map[string]map[string]string
}

func (s *recordingStore) Save(ctx context.Context, name string, write func(io.Writer) error) error {
	if err := s.Dir.Save(ctx, name, write); err != nil {
		return err
	}
	h, items, err := snapshot.LoadFrom[configMap](ctx, s.Dir, name, snapshot.Identity{}, snapshot.ReadOptions{})
	if r, ok := snapshot.ReasonOf(err); ok && r == snapshot.ReasonIdentity {
		// Read back whatever identity it has: only the contents matter here.
		var id snapshot.Identity
		rc, _ := s.Dir.Load(ctx, name)
		sr, rerr := snapshot.NewReader(rc, snapshot.ReadOptions{})
		if rerr == nil {
			id = sr.Header().Identity
		}
		rc.Close()
		h, items, err = snapshot.LoadFrom[configMap](ctx, s.Dir, name, id, snapshot.ReadOptions{})
	}
	if err != nil {
		return err
	}
	state := map[string]string{}
	for _, cm := range items {
		state[cm.Name] = cm.Data["v"]
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.saved == nil {
		s.saved = map[string]map[string]string{}
	}
	s.saved[h.ResourceVersion] = state
	return nil
}

func (s *recordingStore) all() map[string]map[string]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return maps.Clone(s.saved)
}

// serverStateAt lists the server's state at exactly rv.
func serverStateAt(t *testing.T, e *env, rv string) map[string]string {
	t.Helper()
	state := map[string]string{}
	_, err := apiclient.List[configMap](t.Context(), e.client, cmRef,
		apiclient.ListOptions{ResourceVersion: rv, ResourceVersionMatch: "Exact"}, func(cm *configMap) error {
			state[cm.Name] = cm.Data["v"]
			return nil
		})
	require.NoError(t, err)
	return state
}

func TestHandlerFuncsHandSnapshotAddsToAddFuncUnlessTold(t *testing.T) {
	var got []string
	add := func(cm *configMap, initial bool) {
		got = append(got, fmt.Sprintf("add %s initial=%t", cm.Name, initial))
	}
	cm := &configMap{}
	cm.Name = "a"
	informer.HandlerFuncs[*configMap]{AddFunc: add}.OnSnapshotAdd(cm)
	informer.HandlerFuncs[*configMap]{AddFunc: add,
		SnapshotAddFunc: func(cm *configMap) { got = append(got, "snapshot "+cm.Name) }}.OnSnapshotAdd(cm)
	require.Equal(t, []string{"add a initial=true", "snapshot a"}, got)
}
