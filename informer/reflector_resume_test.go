package informer

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/informer/observe"
	"github.com/zerokube/zerokube/meta"
)

func TestResumingStartsByWatchingFromTheSnapshotsRV(t *testing.T) {
	r, _, _ := testReflector(t, &scriptLW{}, nil)
	require.Equal(t, resuming[*pod]{rv: "40"}, r.resumeAt("40", nil))
	require.Empty(t, r.lastSyncResourceVersion(), "building a state changes nothing")
	require.False(t, r.rec.hasReached(), "a snapshot is not an answer from the server: FailFast still applies")
}

// Each answer to the resume's WATCH leads to the same state whether the
// step sent it or the pipeline had sent it already (openResume, to offer
// the snapshot's TLS session on its connection), and the WATCH is sent
// once either way.
func TestResumingTransitions(t *testing.T) {
	for _, pre := range []bool{false, true} {
		t.Run(map[bool]string{false: "sent by the step", true: "sent before"}[pre], func(t *testing.T) { testResumingTransitions(t, pre) })
	}
}

func testResumingTransitions(t *testing.T, pre bool) {
	for _, tc := range []struct {
		name      string
		streaming bool
		err       error
		want      string // next state, after any backoff
		cause     observe.RelistCause
	}{
		{"opened: watching, marked resumed", false, nil, "watching", 0},
		{"410: relist at once, snapshot-expired", false, statusErr(410, meta.ReasonExpired), "listing", observe.CauseSnapshotExpired},
		{"410 streaming: a streaming list", true, statusErr(410, meta.ReasonGone), "stream-listing", observe.CauseSnapshotExpired},
		{"422 to sendInitialEvents=false: resume with a plain watch", true, statusErr(422, meta.ReasonInvalid), "resuming", 0},
		{"unreachable: resume again after backoff", false, errors.New("connection refused"), "resuming", 0},
		{"504 too-large rv: a consistent relist after backoff", false, &meta.StatusError{Status: meta.Status{
			Code: 504, Reason: meta.ReasonTimeout, Details: &meta.StatusDetails{Causes: []meta.StatusCause{{Type: meta.CauseResourceVersionTooLarge}}}}},
			"listing", observe.CauseTooLargeRV},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newFakeWatch(nil, nil)
			w.openErr = tc.err
			lw := &scriptLW{watches: []*fakeWatch{w}}
			r, _, _ := testReflector(t, lw, func(c *reflectorConfig[*pod]) { c.streaming = tc.streaming })
			var sent *preopened[*pod]
			if pre {
				sent = r.openResume(t.Context(), "40")
				require.Len(t, lw.watchRq, 1)
			}
			s := r.step(t.Context(), r.resumeAt("40", sent))
			require.Len(t, lw.watchRq, 1, "one WATCH, whoever sent it")
			if b, ok := s.(backingOff); ok {
				s = b.next
			}
			require.Equal(t, tc.want, s.stateName())
			require.Equal(t, tc.streaming, lw.watchRq[0].Mode == ResumeFrom, "sendInitialEvents=false only when streaming")
			require.Equal(t, tc.streaming, lw.watchRq[0].watchOptions().NoInitialEvents)
			require.Equal(t, "40", lw.watchRq[0].ResourceVersion)
			require.True(t, lw.watchRq[0].watchOptions().AllowWatchBookmarks)
			switch s := s.(type) {
			case watching[*pod]:
				require.True(t, s.resumed)
				s.w.Stop()
			case listing[*pod]:
				require.Equal(t, tc.cause, s.cause)
			case streamListing:
				require.Equal(t, tc.cause, s.cause)
				require.Equal(t, "40", s.rv)
			case resuming[*pod]:
				require.False(t, r.streaming, "LIST from then on, when streaming was refused")
				require.Nil(t, s.pre, "a retry sends its own WATCH")
			}
		})
	}
}

func TestAResumedWatchAnswering410RelistsAsSnapshotExpired(t *testing.T) {
	w := newFakeWatch(nil, statusErr(410, meta.ReasonExpired))
	r, _, _ := testReflector(t, &scriptLW{}, nil)
	s := r.step(t.Context(), watching[*pod]{w: w, rv: "40", resumed: true})
	l := stateAs[listing[*pod]](t, s)
	require.Equal(t, observe.CauseSnapshotExpired, l.cause)
	require.Equal(t, "40", l.req.ResourceVersion)
}
