package observe

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/meta"
)

func TestEventString(t *testing.T) {
	for _, tc := range []struct {
		ev   Event
		want string
	}{
		{Event{Stage: StageListPage, Page: 1, Items: 500, ResourceVersion: "12"}, "list-page page=1 items=500 rv=12"},
		{Event{Stage: StageRelist, Cause: CauseWatchGone, ResourceVersion: "12"}, "relist rv=12 cause=watch-gone"},
		{Event{Stage: StageHandlerCalled, Handler: "h", Op: OpAdd, Key: "ns/a", Duration: time.Millisecond}, "handler-called handler=h op=add key=ns/a took=1ms"},
		{Event{Stage: StageEvent, EventType: meta.Modified, Key: "ns/a", ResourceVersion: "13"}, "event type=MODIFIED key=ns/a rv=13"},
		{Event{Stage: StageAuditDifference, Op: OpMissing, Key: "ns/a", ResourceVersion: "13"}, "audit-difference op=missing key=ns/a rv=13"},
		{Event{Stage: StageAuditFailed, ResourceVersion: "13"}, "audit-failed rv=13"},
	} {
		require.Equal(t, tc.want, tc.ev.String())
	}
}

// The Op names are what --trace prints and scripts match: they are spelled
// out here so that renaming one fails a test, and each reads back.
func TestTraceOpNamesAreStableAndRoundTrip(t *testing.T) {
	want := map[Op]string{
		OpAdd: "add", OpUpdate: "update", OpDelete: "delete",
		OpReplace: "replace", OpUnchanged: "unchanged", OpTombstone: "tombstone",
		OpSync: "sync", OpSnapshot: "snapshot", OpInitialEventsEnd: "initial-events-end",
		OpMissing: "missing", OpExtra: "extra", OpStale: "stale",
	}
	for op, name := range want {
		require.Equal(t, name, op.String())
		b, err := op.MarshalText()
		require.NoError(t, err)
		var back Op
		require.NoError(t, back.UnmarshalText(b))
		require.Equal(t, op, back)
	}
	require.Equal(t, "", Op(0).String(), "a stage without an op prints no op=")
	var bad Op
	require.ErrorContains(t, bad.UnmarshalText([]byte("adde")), `unknown trace op "adde"`)
}

// A request's shape prints as one quoted value, its reasons as another,
// so a script reading the trace can split the line on spaces outside
// quotes; a consistent read shows rv="".
func TestEventStringWithARequest(t *testing.T) {
	req := &Request{Verb: VerbList, ResourceVersion: "0", Limit: 500, Protobuf: true, Metadata: true,
		FieldSelector: "spec.nodeName=n1", Why: []string{"rv=0: the watch cache", "metadata-only: the type reads only metadata"}}
	require.Equal(t, "list rv=0 limit=500 protobuf metadata fieldSelector=spec.nodeName=n1", req.String())
	require.Equal(t, `relist rv=0 metadata=true cause=initial request="list rv=0 limit=500 protobuf metadata fieldSelector=spec.nodeName=n1" `+
		`why="rv=0: the watch cache; metadata-only: the type reads only metadata"`,
		Event{Stage: StageRelist, ResourceVersion: "0", Metadata: true, Cause: CauseInitial, Request: req}.String())
	consistent := Request{Verb: VerbStreamingList, ResourceVersionMatch: "NotOlderThan", Gzip: true}
	require.Equal(t, `streaming-list rv="" match=NotOlderThan json gzip whole`, consistent.String())
	require.Equal(t, "verb(?)", Verb(0).String())
	b, err := VerbStreamingList.MarshalText()
	require.NoError(t, err)
	require.Equal(t, "streaming-list", string(b))
}
