package informer

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/meta"
)

// The repair stage, one rule at a time: a request ends the open watch, or
// refuses the next one, with a 410 the reflector answers by relisting; a
// list, plain or streaming, is the repair and clears it.
func TestRepairStageEndsTheWatchUntilAListComes(t *testing.T) {
	ctx := t.Context()
	lw := newRepairLW[*pod](&scriptLW{})
	isRepair := func(err error) bool { return errors.Is(err, errAuditRepair) && meta.IsGone(err) }

	open, err := lw.Watch(ctx, WatchRequest{ResourceVersion: "5"})
	require.NoError(t, err)
	lw.request()
	_, err = open.Next()
	require.True(t, isRepair(err), "the open watch ends with the repair's 410: %v", err)
	open.Stop()

	_, err = lw.Watch(ctx, WatchRequest{ResourceVersion: "5"})
	require.True(t, isRepair(err), "no watch before the relist: %v", err)

	done, cancel := context.WithCancel(ctx)
	cancel() // the script has no list: it answers a context that ended
	_, err = lw.List(done, ListRequest{ResourceVersion: "5"}, func(*pod) error { return nil })
	require.ErrorIs(t, err, context.Canceled)
	w, err := lw.Watch(ctx, WatchRequest{ResourceVersion: "6"})
	require.NoError(t, err, "the list cleared the request")
	w.Stop()

	lw.request()
	w, err = lw.Watch(ctx, WatchRequest{Mode: StreamingList})
	require.NoError(t, err, "a streaming list is the relist asked for")
	w.Stop()
	require.Empty(t, lw.watches, "stopped watches are forgotten")
}
