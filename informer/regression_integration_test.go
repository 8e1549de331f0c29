package informer_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/informer"
	"github.com/zerokube/zerokube/informer/observe"
	"github.com/zerokube/zerokube/meta"
	"github.com/zerokube/zerokube/shard"
)

// Regression tests of issue #25's items that need the fake server, one per
// bug, named after it (the others are in regression_test.go).

func shardOpt(t *testing.T, i, n int) func(*informer.Options[*configMap]) {
	sel, err := shard.Of(i, n)
	require.NoError(t, err)
	sh, err := informer.NewShard(sel)
	require.NoError(t, err)
	return func(o *informer.Options[*configMap]) { o.Shard = sh }
}

func names(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprint("o", i)
	}
	return out
}

// TestAnUnshardedInformerDoesNotResumeAShardsSnapshot (item 1): the
// snapshot's identity names the shard, so an informer of the whole
// resource rejects a snapshot of one shard and lists, instead of resuming
// a watch and never learning of the other shard's objects.
func TestAnUnshardedInformerDoesNotResumeAShardsSnapshot(t *testing.T) {
	e, dir := newEnv(t), t.TempDir()
	seed(t, e, names(20)...)
	half := startAgent(t, e, dir, shardOpt(t, 0, 2))
	require.Less(t, len(cacheState(half.inf)), 20)
	half.stop()

	whole := startAgent(t, e, dir, nil)
	require.Equal(t, []string{"identity"}, whole.m.results, "the shard's snapshot is rejected")
	converges(t, e, whole.inf)
	require.Len(t, cacheState(whole.inf), 20)
}

// TestObjectsSkippedBeforeARestartAreListedAgain (item 2): a snapshot saved
// while a list skipped an object that does not fit the type says so; the
// next start loads it but relists (cause snapshot-incomplete) instead of
// resuming a watch that would never bring the object, so Undecodable names
// it again, and a type that now fits it would get it.
func TestObjectsSkippedBeforeARestartAreListedAgain(t *testing.T) {
	e, dir := newEnv(t), t.TempDir()
	seed(t, e, "a")
	putUndecodable(t, e, "b")
	skip := func(o *informer.Options[*configMap]) { o.Decode.SkipUndecodable = true }
	first := startAgent(t, e, dir, skip)
	require.Len(t, first.inf.Undecodable(), 1)
	first.stop()

	second := startAgent(t, e, dir, skip)
	require.Equal(t, []string{"resumed"}, second.m.results)
	require.Eventually(t, func() bool { return len(second.inf.Undecodable()) == 1 }, wait, time.Millisecond,
		"the relist names the skipped object again")
	relists := second.tr.of(observe.StageRelist)
	require.NotEmpty(t, relists)
	require.Equal(t, observe.CauseSnapshotIncomplete, relists[0].Cause)
}

// TestASnapshotOfDifferentlyShapedObjectsIsNotResumed (item 2): a changed
// Transform (by its TransformVersion) or KeepManagedFields changes what the
// cached objects look like, so the snapshot's identity covers them.
func TestASnapshotOfDifferentlyShapedObjectsIsNotResumed(t *testing.T) {
	noop := func(cm *configMap) (*configMap, error) { return cm, nil }
	for name, tc := range map[string]struct {
		before, after func(*informer.Options[*configMap])
	}{
		"transform added": {nil, func(o *informer.Options[*configMap]) { o.Decode.Transform = noop }},
		"transform changed": {func(o *informer.Options[*configMap]) { o.Decode.Transform, o.Snapshot.TransformVersion = noop, "v1" },
			func(o *informer.Options[*configMap]) { o.Decode.Transform, o.Snapshot.TransformVersion = noop, "v2" }},
		"managed fields kept": {nil, func(o *informer.Options[*configMap]) { o.Decode.KeepManagedFields = true }},
	} {
		t.Run(name, func(t *testing.T) {
			e, dir := newEnv(t), t.TempDir()
			seed(t, e, "a", "b")
			startAgent(t, e, dir, tc.before).stop()
			after := startAgent(t, e, dir, tc.after)
			require.Equal(t, []string{"identity"}, after.m.results)
			after.stop()
			again := startAgent(t, e, dir, tc.after)
			require.Equal(t, []string{"resumed"}, again.m.results, "the same shape resumes")
		})
	}
}

// TestAnObjectCreatedDuringDowntimeIsNoSnapshotObject (item 3): with
// Options.Process.DeltaFIFO a relist that came before the snapshot's batch was popped
// merged into it, and an object created while the informer was down was
// handed to OnSnapshotAdd. The snapshot is now applied alone before the
// reflector starts.
func TestAnObjectCreatedDuringDowntimeIsNoSnapshotObject(t *testing.T) {
	deltaFIFO := func(o *informer.Options[*configMap]) { o.Process.DeltaFIFO = true }
	for i := range 5 { // the race was lost 47 times in 50
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			e, dir := newEnv(t), t.TempDir()
			seed(t, e, "a", "b")
			startAgent(t, e, dir, deltaFIFO).stop()
			e.put(t, "f", "1", nil)
			e.srv.Compact(0) // the resume gets 410: a relist at once
			second := startAgent(t, e, dir, deltaFIFO)
			require.Equal(t, sorted(append(snapshotLines("a", "b"), "add f=1 initial=false")), second.settled(t, e, 0))
		})
	}
}

// failingLW fails every request with err.
type failingLW struct{ err error }

func (lw failingLW) List(context.Context, informer.ListRequest, func(*configMap) error) (informer.ListPage, error) {
	return informer.ListPage{}, lw.err
}

func (lw failingLW) Watch(context.Context, informer.WatchRequest) (informer.Watch[*configMap], error) {
	return nil, lw.err
}

// restartOffline saves a snapshot, then starts an informer over the same
// snapshot whose every request fails with err.
func restartOffline(t *testing.T, err error, tweak func(*informer.Options[*configMap])) (*informer.Informer[configMap, *configMap], chan error) {
	e, dir := newEnv(t), t.TempDir()
	seed(t, e, "a")
	startAgent(t, e, dir, nil).stop()
	opts := fastOpts()
	opts.Snapshot = informer.SnapshotOptions{Dir: dir, Period: -1}
	opts.WrapListerWatcher = func(informer.ListerWatcher[*configMap]) informer.ListerWatcher[*configMap] { return failingLW{err} }
	if tweak != nil {
		tweak(&opts)
	}
	inf := informer.New[configMap](e.client, cmRef, opts)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- inf.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	synced(t, inf)
	return inf, done
}

// TestAResumedInformerThatNeverReachesTheServerTurnsUnhealthy (item 4): a
// snapshot syncs the informer without the server, but it is not contact:
// failing requests make it unhealthy, and with no progress since Run began
// it grows stale.
func TestAResumedInformerThatNeverReachesTheServerTurnsUnhealthy(t *testing.T) {
	refused := errors.New("dial tcp 10.0.0.1:6443: connect: connection refused")
	t.Run("failures", func(t *testing.T) {
		inf, _ := restartOffline(t, refused, nil)
		require.Eventually(t, func() bool { return inf.Health().Failing }, wait, time.Millisecond)
		require.False(t, inf.Health().Healthy())
	})
	t.Run("stale", func(t *testing.T) {
		inf, _ := restartOffline(t, refused, func(o *informer.Options[*configMap]) {
			o.Health.UnhealthyAfterFailures, o.Health.StaleAfter = -1, 50*time.Millisecond
		})
		require.Eventually(t, func() bool { return inf.Health().Stale }, wait, time.Millisecond)
		require.True(t, inf.Health().LastProgress.IsZero(), "never heard from the server")
	})
}

// TestFailFastStopsAResumedInformerOnForbidden (item 4): a snapshot does
// not count as having listed: a 403 after a restart stops Run under
// FailFast, as it does at a first start.
func TestFailFastStopsAResumedInformerOnForbidden(t *testing.T) {
	forbidden := meta.NewStatusError(403, meta.ReasonForbidden, "configmaps is forbidden")
	_, done := restartOffline(t, forbidden, func(o *informer.Options[*configMap]) { o.Sync.FailFast = true })
	var err error
	require.Eventually(t, func() bool {
		select {
		case err = <-done:
			return true
		default:
			return false
		}
	}, wait, time.Millisecond)
	var se *informer.SyncError
	require.ErrorAs(t, err, &se)
	require.Equal(t, observe.FailureForbidden, se.Reason)
	done <- err // for the cleanup
}

// TestAShardedInformerResumesFromItsSnapshot (item 7): the shard filter
// knew of no list after a restart, so a sharded informer's resumed watch
// always failed and relisted, reported as snapshot-expired.
func TestAShardedInformerResumesFromItsSnapshot(t *testing.T) {
	e, dir := newEnv(t), t.TempDir()
	seed(t, e, names(10)...)
	sel, err := shard.Of(1, 2)
	require.NoError(t, err)
	sharded := shardOpt(t, 1, 2)
	startAgent(t, e, dir, sharded).stop()
	for i := range 4 { // changes while it was down, some in its shard
		e.put(t, fmt.Sprint("o", i), "1", nil)
	}
	second := startAgent(t, e, dir, sharded)
	require.Equal(t, []string{"resumed"}, second.m.results)
	want := shardOf(serverObjects(t, e), sel)
	require.Eventually(t, func() bool { return maps.Equal(want, cacheState(second.inf)) }, wait, time.Millisecond,
		"the resumed watch brings the shard's changes")
	require.Empty(t, second.tr.of(observe.StageRelist), "resumed: no relist of any kind")
}

// TestAStreamingListSkipsAnUndecodableObjectWithoutAFailure (found by the
// matrix, outside items 1-10): a streaming list cannot step over an object
// that does not fit the type. Under SkipUndecodable that is no failure: the
// informer lists with LIST from then on, which skips the object and names
// it, with no WatchErrorHandler call and no failure in Health.
func TestAStreamingListSkipsAnUndecodableObjectWithoutAFailure(t *testing.T) {
	e := newEnv(t)
	e.put(t, "a", "1", nil)
	putUndecodable(t, e, "b")
	var failures []error
	var mu sync.Mutex
	opts := fastOpts()
	opts.Sync.StreamingList, opts.Decode.SkipUndecodable = true, true
	// JSON: over protobuf the fake serves this object with a wire type
	// the schema does not allow, malformed input rather than an object
	// that does not fit the type.
	opts.Transport.JSON = true
	opts.Observe.WatchErrorHandler = func(_ context.Context, err error) { mu.Lock(); failures = append(failures, err); mu.Unlock() }
	inf := informer.New[configMap](e.client, cmRef, opts)
	run(t, inf)
	synced(t, inf)
	require.Equal(t, []string{"default/a"}, inf.Store().ListKeys())
	u := inf.Undecodable()
	require.Len(t, u, 1)
	require.Equal(t, "default/b", u[0].Key)
	e.put(t, "c", "1", nil)
	require.Eventually(t, func() bool { return len(inf.Store().ListKeys()) == 2 }, wait, time.Millisecond, "then watches")
	mu.Lock()
	defer mu.Unlock()
	require.Empty(t, failures)
	require.Nil(t, inf.Health().Failure)
}
