package informer_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/apiclient"
	"github.com/zerokube/zerokube/apiclient/websocket"
	"github.com/zerokube/zerokube/informer"
	"github.com/zerokube/zerokube/informer/observe"
	"github.com/zerokube/zerokube/internal/testutil"
	"github.com/zerokube/zerokube/meta"
	"github.com/zerokube/zerokube/watchstream"
)

// strictPod declares an image as testutil.PinnedImage, and a probe's port as an
// int32 where the API has an IntOrString: a named port ("http") does not
// fit it.
type strictPod struct {
	meta.TypeMeta
	meta.ObjectMeta `json:"metadata"`
	Spec            struct {
		Containers []struct {
			Name           string               `json:"name"`
			Image          testutil.PinnedImage `json:"image"`
			ReadinessProbe *struct {
				HTTPGet *struct {
					Port int32 `json:"port"`
				} `json:"httpGet,omitempty"`
			} `json:"readinessProbe,omitempty"`
		} `json:"containers"`
	} `json:"spec"`
}

var podRef = apiclient.Ref{GVR: meta.GVR{Version: "v1", Resource: "pods"}, Namespace: "default"}

// putPod stores a pod of two containers; image and port are the second's.
func putPod(t *testing.T, e *env, name, image string, port any) {
	t.Helper()
	second := map[string]any{"name": "b", "image": image}
	if port != nil {
		second["readinessProbe"] = map[string]any{"httpGet": map[string]any{"port": port}}
	}
	_, err := e.srv.Create(podRef.GVR, map[string]any{
		"metadata": map[string]any{"name": name, "namespace": "default"},
		"spec":     map[string]any{"containers": []any{map[string]any{"name": "a", "image": "nginx:1.27"}, second}}})
	require.NoError(t, err)
}

// undecodableCase is one way a pod does not fit strictPod.
type undecodableCase struct {
	name  string
	image string
	port  any
	path  string // the JSON pointer in the object, on either wire
	is    error  // the cause errors.Is finds, when the type has one
}

var undecodableCases = []undecodableCase{
	{"a validating type refuses the value", "nginx:latest", nil, "/spec/containers/1/image", testutil.ErrUnpinned},
	{"an IntOrString holds a string for an int", "nginx:1.27", "http", "/spec/containers/1/readinessProbe/httpGet/port", nil},
}

var wires = []struct {
	name string
	tr   informer.Transport
}{{"protobuf", informer.Transport{}}, {"protobuf-websocket", informer.Transport{Websocket: websocket.Dialer{}}}, {"json", informer.Transport{JSON: true}}}

// watchErrors collects what the informer reports to WatchErrorHandler.
type watchErrors struct {
	mu   sync.Mutex
	errs []error
}

func (w *watchErrors) add(_ context.Context, err error) {
	w.mu.Lock()
	w.errs = append(w.errs, err)
	w.mu.Unlock()
}

func (w *watchErrors) all() []error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]error(nil), w.errs...)
}

// strictRun is how startStrict runs the informer.
type strictRun struct {
	streaming bool
	pageSize  int64 // > 0: a consistent first list in pages of this size
	noSkip    bool  // without SkipUndecodable
}

// startStrict runs a strictPod informer, with SkipUndecodable unless told
// otherwise, on the wire.
func startStrict(t *testing.T, e *env, tr informer.Transport, how strictRun) (*informer.Informer[strictPod, *strictPod], *watchErrors) {
	t.Helper()
	w := &watchErrors{}
	inf := informer.New[strictPod](e.client, podRef, informer.Options[*strictPod]{
		Transport: tr,
		Backoff:   informer.BackoffOptions{Initial: 10 * time.Millisecond, Max: 100 * time.Millisecond},
		Sync: informer.SyncOptions{
			StreamingList:       how.streaming,
			PageSize:            how.pageSize,
			ConsistentFirstList: how.pageSize > 0,
		},
		Decode: informer.DecodeOptions[*strictPod]{SkipUndecodable: !how.noSkip},
		Observe: informer.ObserveOptions{
			Logger:            quiet(),
			WatchErrorHandler: w.add,
		},
	})
	run(t, inf)
	return inf, w
}

// skippedAsExpected checks the informer holds the good pods only and names
// the bad one: key, page, path and cause.
func skippedAsExpected(t *testing.T, inf *informer.Informer[strictPod, *strictPod], c undecodableCase, page int, good ...string) {
	t.Helper()
	require.Eventually(t, func() bool { return len(inf.Undecodable()) == 1 }, wait, time.Millisecond, "the bad pod is listed as skipped")
	require.ElementsMatch(t, good, inf.Store().ListKeys())
	u := inf.Undecodable()[0]
	require.Equal(t, "default/bad", u.Key)
	require.Equal(t, page, u.Page)
	require.Equal(t, c.path, u.Path)
	require.Error(t, u.Err)
	if c.is != nil {
		require.ErrorIs(t, u.Err, c.is)
	}
	require.Equal(t, 1, inf.Health().Undecodable)
}

// eachWireAndCase runs f for every undecodable case on each wire.
func eachWireAndCase(t *testing.T, f func(*testing.T, informer.Transport, undecodableCase)) {
	for _, w := range wires {
		for _, c := range undecodableCases {
			t.Run(w.name+"/"+c.name, func(t *testing.T) { f(t, w.tr, c) })
		}
	}
}

// afterwards checks the informer watches on: a good pod created now
// arrives.
func afterwards(t *testing.T, e *env, inf *informer.Informer[strictPod, *strictPod]) {
	t.Helper()
	putPod(t, e, "c", "nginx:1.27", 8080)
	require.Eventually(t, func() bool { return len(inf.Store().ListKeys()) == 2 }, wait, time.Millisecond, "then watches")
}

// On both wires, a LIST page (a pod a page: the bad pod is on page 2) skips
// the one pod that does not fit and names it by key, page and path.
func TestAListPageSkipsAnObjectThatDoesNotFitOnEitherWire(t *testing.T) {
	eachWireAndCase(t, func(t *testing.T, tr informer.Transport, c undecodableCase) {
		e := newEnv(t)
		putPod(t, e, "a", "nginx:1.27", nil)
		putPod(t, e, "bad", c.image, c.port)
		putPod(t, e, "c", "nginx:1.27", 8080)
		inf, _ := startStrict(t, e, tr, strictRun{pageSize: 1})
		synced(t, inf)
		skippedAsExpected(t, inf, c, 2, "default/a", "default/c")
		require.Nil(t, inf.Health().Failure)
	})
}

// On both wires, without SkipUndecodable, the sync fails and WaitForSync
// names the object, its page and the path.
func TestWithoutSkipTheSyncErrorNamesTheObjectOnEitherWire(t *testing.T) {
	eachWireAndCase(t, func(t *testing.T, tr informer.Transport, c undecodableCase) {
		e := newEnv(t)
		putPod(t, e, "a", "nginx:1.27", nil)
		putPod(t, e, "bad", c.image, c.port)
		inf, _ := startStrict(t, e, tr, strictRun{pageSize: 1, noSkip: true})
		require.Eventually(t, func() bool { return inf.SyncError() != nil }, wait, time.Millisecond)
		ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
		defer cancel()
		err := inf.WaitForSync(ctx)
		var se *informer.SyncError
		require.ErrorAs(t, err, &se)
		require.Equal(t, observe.FailureUndecodable, se.Reason)
		for _, part := range []string{"page 2", "default/bad", c.path} {
			require.ErrorContains(t, err, part)
		}
		if c.is != nil {
			require.ErrorIs(t, err, c.is)
		}
		require.Empty(t, inf.Undecodable())
	})
}

// On both wires, a watch event whose object does not fit ends the watch
// with an error naming the event, the object and the path; the relist
// skips the object, and the informer watches on.
func TestAWatchEventThatDoesNotFitIsNamedThenSkippedOnEitherWire(t *testing.T) {
	eachWireAndCase(t, func(t *testing.T, tr informer.Transport, c undecodableCase) {
		e := newEnv(t)
		putPod(t, e, "a", "nginx:1.27", nil)
		inf, werrs := startStrict(t, e, tr, strictRun{})
		synced(t, inf)
		require.NoError(t, e.srv.AwaitWatchers(t.Context(), 1))
		putPod(t, e, "bad", c.image, c.port)
		skippedAsExpected(t, inf, c, 1, "default/a")

		var de *watchstream.DecodeError
		for _, err := range werrs.all() {
			if errors.As(err, &de) {
				break
			}
		}
		require.NotNil(t, de, "the watch error is a DecodeError: %v", werrs.all())
		require.Equal(t, "default/bad", de.Object)
		require.Equal(t, "/object"+c.path, de.Path)
		require.Positive(t, de.Event)
		require.ErrorContains(t, de, "default/bad")
		if c.is != nil {
			require.ErrorIs(t, de, c.is)
		}

		afterwards(t, e, inf)
	})
}

// On both wires, a streaming list that meets a pod that does not fit
// turns to LIST, which skips it, without a failure.
func TestAStreamingListSkipsAnObjectThatDoesNotFitOnEitherWire(t *testing.T) {
	eachWireAndCase(t, func(t *testing.T, tr informer.Transport, c undecodableCase) {
		e := newEnv(t)
		putPod(t, e, "a", "nginx:1.27", nil)
		putPod(t, e, "bad", c.image, c.port)
		inf, werrs := startStrict(t, e, tr, strictRun{streaming: true})
		synced(t, inf)
		skippedAsExpected(t, inf, c, 1, "default/a")
		afterwards(t, e, inf)
		require.Empty(t, werrs.all())
		require.Nil(t, inf.Health().Failure)
	})
}
