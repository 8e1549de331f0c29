package informer_test

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/clock/clocktest"
	"github.com/zerokube/zerokube/fakeapiserver"
	"github.com/zerokube/zerokube/informer"
	"github.com/zerokube/zerokube/informer/observe"
)

// TestAStreamingListThatDoesNotDecodeFallsBackToList (issue 31 item 9): a
// streaming list whose first frame is corrupted (its protobuf envelope
// inverted: not an object that does not fit the type, a frame nobody can
// read) is replaced at once by a paged LIST for that cycle, and the relist
// event of the trace says why. Before, the streaming list was retried
// after a backoff, 1.2 s growing to 29 s, for as long as the stream stayed
// broken: on the fake clock, never. The next relist streams again.
func TestAStreamingListThatDoesNotDecodeFallsBackToList(t *testing.T) {
	e := newEnv(t, fakeapiserver.Options{BookmarkInterval: 50 * time.Millisecond, DisableWatchListCompression: true})
	e.put(t, "a", "0", nil)
	e.put(t, "b", "0", nil)
	e.srv.CorruptBodies(fakeapiserver.CorruptBody{Count: 1, Verb: "watch", QueryContains: "sendInitialEvents=true", After: 4})
	var mu sync.Mutex
	var relists []observe.Event
	opts := informer.Options[*configMap]{
		Clock: clocktest.New(),
		Sync:  informer.SyncOptions{StreamingList: true},
		Observe: informer.ObserveOptions{
			Logger: quiet(),
			Trace: func(ev observe.Event) {
				if ev.Stage == observe.StageRelist {
					mu.Lock()
					relists = append(relists, ev)
					mu.Unlock()
				}
			},
		},
	}
	inf := informer.New[configMap](e.client, cmRef, opts)
	run(t, inf)
	synced(t, inf) // the fake clock never moves: no backoff is waited
	converges(t, e, inf)
	require.Equal(t, int64(1), e.srv.Stats().Faults[fakeapiserver.FaultCorruptBody])

	mu.Lock()
	defer mu.Unlock()
	require.Len(t, relists, 2)
	require.True(t, relists[0].Streaming)
	fb := relists[1]
	require.Equal(t, observe.CauseStreamingFallback, fb.Cause)
	require.False(t, fb.Streaming, "a LIST")
	require.Error(t, fb.Err, "the fallback says why")
	require.Contains(t, fb.String(), "cause=streaming-fallback err=informer: streaming list: ")
	require.False(t, strings.Contains(fb.Err.Error(), "does not fit"), "a corrupted frame, not an object of the wrong shape: %v", fb.Err)
	t.Logf("trace: %s", fb)
}
