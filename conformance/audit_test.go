package conformance

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/apiclient"
	"github.com/zerokube/zerokube/informer"
	"github.com/zerokube/zerokube/informer/observe"
	"github.com/zerokube/zerokube/meta"
	"github.com/zerokube/zerokube/watchstream"
)

// The cache audit (informer.Options.Audit) on both servers: an exact
// metadata list at the cache's resourceVersion agrees with a cache in
// step, and finds the object whose event a man in the middle swallowed.

// swallower stands between the informer and the server, as a proxy would:
// once armed, it swallows the next object event of the watch, which the
// informer never learns of. The audit's own list does not pass through it.
type swallower struct {
	informer.ListerWatcher[*configMap]
	armed atomic.Bool
}

func (s *swallower) Watch(ctx context.Context, o apiclient.WatchOptions) (informer.Watch[*configMap], error) {
	w, err := s.ListerWatcher.Watch(ctx, o)
	if err != nil {
		return nil, err
	}
	return swallowWatch{w, s}, nil
}

type swallowWatch struct {
	informer.Watch[*configMap]
	s *swallower
}

func (w swallowWatch) Next() (watchstream.Event[*configMap], error) {
	for {
		ev, err := w.Watch.Next()
		if err == nil && ev.Type != meta.Bookmark && w.s.armed.CompareAndSwap(true, false) {
			continue
		}
		return ev, err
	}
}

// awaitTraced waits for an event r's informer traced that ok accepts,
// and returns it.
func awaitTraced(t *testing.T, r *run, ok func(observe.Event) bool) observe.Event {
	t.Helper()
	var got observe.Event
	require.Eventually(t, func() bool {
		r.mu.Lock()
		defer r.mu.Unlock()
		i := slices.IndexFunc(r.stages, ok)
		if i >= 0 {
			got = r.stages[i]
		}
		return i >= 0
	}, 60*time.Second, 5*time.Millisecond, "nothing such traced")
	return got
}

func TestInformerAuditFindsASwallowedEvent(t *testing.T) {
	for _, repair := range []bool{false, true} {
		t.Run(fmt.Sprintf("repair=%v", repair), func(t *testing.T) {
			onBoth(t, func(t *testing.T, tg *target) {
				ns := tg.namespace(t)
				want := seed(t, tg, ns, 5)
				sw := &swallower{}
				r := startInformer(t, tg, ns, informer.Options[*configMap]{
					Audit: informer.AuditOptions{Period: 200 * time.Millisecond, Repair: repair, PageSize: 2}},
					func(lw informer.ListerWatcher[*configMap]) informer.ListerWatcher[*configMap] {
						sw.ListerWatcher = lw
						return sw
					})
				ev := awaitTraced(t, r, func(ev observe.Event) bool { return ev.Stage == observe.StageAudited })
				require.NoError(t, ev.Err, "an exact list at the cache's resourceVersion agrees with it")
				require.Equal(t, 5, ev.Items)

				sw.armed.Store(true)
				p := "/api/v1/namespaces/" + ns + "/configmaps"
				tg.must(t, 201, "POST", p, obj(`{"metadata":{"name":"lost"},"data":{"k":"v0"}}`))
				tg.must(t, 201, "POST", p, obj(`{"metadata":{"name":"seen"},"data":{"k":"v0"}}`))
				want["lost"], want["seen"] = "v0", "v0"
				ev = awaitTraced(t, r, func(ev observe.Event) bool {
					return ev.Stage == observe.StageAuditDifference && ev.Key == ns+"/lost"
				})
				require.Equal(t, observe.OpMissing, ev.Op)
				var d *informer.AuditDifference
				ev = awaitTraced(t, r, func(ev observe.Event) bool { return errors.As(ev.Err, &d) })
				require.Equal(t, 1, d.Missing)
				if !repair {
					require.True(t, r.inf.Health().Diverged)
					require.NotContains(t, r.cached(), "lost")
					return
				}
				r.awaitCache(t, want)
				require.Eventually(t, func() bool { return !r.inf.Health().Diverged }, 30*time.Second, 5*time.Millisecond)
			})
		})
	}
}
