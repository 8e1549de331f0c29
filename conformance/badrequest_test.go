package conformance

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/apiclient"
	"github.com/zerokube/zerokube/informer"
	"github.com/zerokube/zerokube/informer/observe"
	"github.com/zerokube/zerokube/meta"
)

// A selector the server rejects is the informer's own request at fault:
// both servers answer it 400 BadRequest, and an informer with FailFast
// stops on it at once with FailureBadRequest, where retrying would only
// repeat the same rejected request forever. WaitForSync's error carries
// the server's words (which name the bad selector) and what to fix.
func TestABadSelectorStopsAFailFastInformer(t *testing.T) {
	for _, tc := range []struct {
		name         string
		label, field string
		says         []string // in WaitForSync's error, on both servers
	}{
		{"field", "", "spec.nodname=node-1",
			[]string{"bad request", `field selector "spec.nodname=node-1"`, "spec.nodname"}},
		{"label", "a in (", "",
			[]string{"bad request", `label selector "a in ("`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			onBoth(t, func(t *testing.T, tg *target) {
				c, err := apiclient.New(tg.cfg)
				require.NoError(t, err)
				t.Cleanup(c.CloseIdleConnections)
				ref := apiclient.Ref{GVR: meta.GVR{Version: "v1", Resource: "pods"}, Namespace: tg.namespace(t)}
				inf := informer.New[configMap](c, ref, informer.Options[*configMap]{
					LabelSelector: tc.label,
					FieldSelector: tc.field,
					Sync:          informer.SyncOptions{FailFast: true},
					Observe:       informer.ObserveOptions{Logger: quiet()},
				})
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				defer cancel()
				runErr := inf.Run(ctx)
				var se *informer.SyncError
				require.True(t, errors.As(runErr, &se), "Run must stop on the 400, got %v", runErr)
				require.Equal(t, observe.FailureBadRequest, se.Reason, "%v", runErr)
				werr := inf.WaitForSync(ctx)
				for _, part := range tc.says {
					require.ErrorContains(t, werr, part)
				}
			})
		})
	}
}
