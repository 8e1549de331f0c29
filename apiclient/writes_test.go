package apiclient_test

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/apiclient"
	"github.com/zerokube/zerokube/clock"
	"github.com/zerokube/zerokube/clock/clocktest"
	"github.com/zerokube/zerokube/fakeapiserver"
	"github.com/zerokube/zerokube/fakeapiserver/fakeapiservertest"
	"github.com/zerokube/zerokube/meta"
	"github.com/zerokube/zerokube/watchstream"
)

type configMap struct {
	meta.TypeMeta
	meta.ObjectMeta `json:"metadata"`
	Data            map[string]string `json:"data,omitempty"`
}

var cmRef = apiclient.Ref{GVR: meta.GVR{Version: "v1", Resource: "configmaps"}, Namespace: "default"}

// conditioned is a pod as an agent that writes conditions declares it.
type conditioned struct {
	meta.ObjectMeta `json:"metadata"`
	Status          struct {
		Phase      string           `json:"phase,omitempty"`
		Conditions []meta.Condition `json:"conditions,omitempty"`
	} `json:"status"`
}

// writeSpy counts the writes that go through it, and runs before, when
// set, ahead of the first one: another writer getting there first.
type writeSpy struct {
	mu     sync.Mutex
	writes []string // "METHOD path"
	before func()
}

func (s *writeSpy) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method != "GET" {
		s.mu.Lock()
		s.writes = append(s.writes, req.Method+" "+req.URL.Path)
		before := s.before
		s.before = nil
		s.mu.Unlock()
		if before != nil {
			before()
		}
	}
	return http.DefaultTransport.RoundTrip(req)
}

func (s *writeSpy) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.writes)
}

func fakeClient(t *testing.T, clk clock.Clock) (*fakeapiserver.Server, *apiclient.Client, *writeSpy) {
	t.Helper()
	srv := fakeapiservertest.Start(t, fakeapiserver.Options{Logger: slog.New(slog.DiscardHandler)})
	spy := &writeSpy{}
	c, err := apiclient.NewWithOptions(fakeapiservertest.ClientConfig(srv), apiclient.Options{Transport: spy, Clock: clk})
	require.NoError(t, err)
	t.Cleanup(c.CloseIdleConnections)
	return srv, c, spy
}

func TestUpdateMetadataSetsAndRemovesLabelsAndAnnotations(t *testing.T) {
	_, c, _ := fakeClient(t, nil)
	ctx := context.Background()
	_, err := apiclient.Create(ctx, c, cmRef, &configMap{ObjectMeta: meta.ObjectMeta{Name: "a",
		Labels: map[string]string{"keep": "1", "drop": "2"}, Annotations: map[string]string{"old": "x"}}, Data: map[string]string{"k": "v"}})
	require.NoError(t, err)
	got, err := apiclient.UpdateMetadata[configMap](ctx, c, cmRef, "a", apiclient.MetadataChange{
		SetLabels: map[string]string{"new": "3", "keep": "1b"}, RemoveLabels: []string{"drop", "absent"},
		SetAnnotations: map[string]string{"note": "hi"}, RemoveAnnotations: []string{"old"}})
	require.NoError(t, err)
	require.Equal(t, map[string]string{"keep": "1b", "new": "3"}, got.Labels)
	require.Equal(t, map[string]string{"note": "hi"}, got.Annotations)
	require.Equal(t, map[string]string{"k": "v"}, got.Data, "nothing else changes")

	_, err = apiclient.UpdateMetadata[configMap](ctx, c, cmRef, "a", apiclient.MetadataChange{})
	require.ErrorContains(t, err, "sets and removes nothing")
	_, err = apiclient.UpdateMetadata[configMap](ctx, c, cmRef, "missing", apiclient.MetadataChange{RemoveLabels: []string{"x"}})
	require.True(t, meta.IsNotFound(err), "%v", err)
}

func TestSetConditionAddsUpdatesAndStampsOnlyStatusChanges(t *testing.T) {
	clk := clocktest.New()
	srv, c, spy := fakeClient(t, clk)
	ctx := context.Background()
	_, err := srv.Create(podsRef.GVR, map[string]any{"metadata": map[string]any{"name": "p", "namespace": "default"},
		"spec": map[string]any{"containers": []any{map[string]any{"name": "c", "image": "nginx"}}}})
	require.NoError(t, err)
	set := func(status, reason string) *conditioned {
		t.Helper()
		p, err := apiclient.SetCondition[conditioned](ctx, c, podsRef, "p", meta.Condition{Type: "example.com/Ready",
			Status: status, Reason: reason, Message: "m " + reason, ObservedGeneration: 1}, apiclient.ConditionOptions{})
		require.NoError(t, err)
		require.Len(t, p.Status.Conditions, 1)
		return p
	}
	first := set(meta.ConditionTrue, "Up").Status.Conditions[0]
	require.Equal(t, meta.Condition{Type: "example.com/Ready", Status: "True", Reason: "Up", Message: "m Up",
		ObservedGeneration: 1, LastTransitionTime: clocktest.Start.UTC()}, first)

	clk.Advance(time.Minute)
	second := set(meta.ConditionTrue, "StillUp").Status.Conditions[0]
	require.Equal(t, "StillUp", second.Reason)
	require.Equal(t, first.LastTransitionTime, second.LastTransitionTime, "the status did not change")
	writes := spy.count()
	set(meta.ConditionTrue, "StillUp")
	require.Equal(t, writes, spy.count(), "nothing changed: nothing written")
	third := set(meta.ConditionFalse, "Down")
	require.Equal(t, clocktest.Start.Add(time.Minute).UTC(), third.Status.Conditions[0].LastTransitionTime)
	require.Equal(t, "Pending", third.Status.Phase, "the rest of the status is kept")
}

// Issue 38 item 4: a condition another writer stored without
// lastTransitionTime (a pod condition may lack it) gets one when
// SetCondition writes it back, even though its status does not change:
// metav1.Condition requires it, and a custom resource using that schema
// refuses the condition without it (422, conformance's
// TestSetConditionOnACustomResourceWithTheConditionSchema). It is the time
// of this write (or cond.LastTransitionTime), the earliest moment the
// writer knows the status held.
func TestSetConditionStampsAStoredConditionThatHasNoTransitionTime(t *testing.T) {
	clk := clocktest.New()
	srv, c, _ := fakeClient(t, clk)
	_, err := srv.Create(podsRef.GVR, map[string]any{"metadata": map[string]any{"name": "p", "namespace": "default"},
		"spec": map[string]any{"containers": []any{map[string]any{"name": "c", "image": "nginx"}}}})
	require.NoError(t, err)
	_, err = srv.UpdateStatus(podsRef.GVR, map[string]any{"metadata": map[string]any{"name": "p", "namespace": "default"},
		"status": map[string]any{"conditions": []any{
			map[string]any{"type": "example.com/Ready", "status": "True", "reason": "Up", "message": ""},
			map[string]any{"type": "example.com/Null", "status": "True", "reason": "Up", "message": "", "lastTransitionTime": nil},
		}}})
	require.NoError(t, err)
	clk.Advance(time.Hour)
	for _, typ := range []string{"example.com/Ready", "example.com/Null"} {
		p, err := apiclient.SetCondition[conditioned](context.Background(), c, podsRef, "p",
			meta.Condition{Type: typ, Status: meta.ConditionTrue, Reason: "Up"}, apiclient.ConditionOptions{})
		require.NoError(t, err)
		var got meta.Condition
		for _, cond := range p.Status.Conditions {
			if cond.Type == typ {
				got = cond
			}
		}
		require.Equal(t, clocktest.Start.Add(time.Hour).UTC(), got.LastTransitionTime, "%s: stamped although its status held", typ)
	}
}

// Issue 37: the object SetCondition returns goes through the one decoder
// every reply goes through (watchstream's, with its size cap and its
// errors), whether it wrote (the PUT's reply) or found nothing to change
// (the GET's, which was read with json.Unmarshal).
func TestSetConditionDecodesWhatItReturnsAsGetDoes(t *testing.T) {
	srv, c, _ := fakeClient(t, nil)
	_, err := srv.Create(podsRef.GVR, map[string]any{"metadata": map[string]any{"name": "p", "namespace": "default"},
		"spec": map[string]any{"containers": []any{map[string]any{"name": "c", "image": "nginx"}}}})
	require.NoError(t, err)
	// A type that cannot hold the pod: its phase is a string on the wire.
	type wrongPhase struct {
		meta.ObjectMeta `json:"metadata"`
		Status          struct {
			Phase int `json:"phase"`
		} `json:"status"`
	}
	cond := meta.Condition{Type: "example.com/Ready", Status: meta.ConditionTrue, Reason: "Up"}
	for _, what := range []string{"a write", "no change"} {
		_, err := apiclient.SetCondition[wrongPhase](context.Background(), c, podsRef, "p", cond, apiclient.ConditionOptions{})
		var de *watchstream.DecodeError
		require.ErrorAs(t, err, &de, "%s", what)
		require.ErrorContains(t, err, "/api/v1/namespaces/default/pods/p", "%s: the error names the object", what)
	}
}

func TestSetConditionReadsAgainAfterAConflict(t *testing.T) {
	srv, c, spy := fakeClient(t, nil)
	_, err := srv.Create(podsRef.GVR, map[string]any{"metadata": map[string]any{"name": "p", "namespace": "default"},
		"spec": map[string]any{"containers": []any{map[string]any{"name": "c", "image": "nginx"}}}})
	require.NoError(t, err)
	other := &conditioned{}
	spy.before = func() { // another agent writes its condition between our read and our write
		var err error
		other, err = apiclient.SetCondition[conditioned](context.Background(), c, podsRef, "p",
			meta.Condition{Type: "other/Done", Status: "True", Reason: "R"}, apiclient.ConditionOptions{})
		require.NoError(t, err)
	}
	p, err := apiclient.SetCondition[conditioned](context.Background(), c, podsRef, "p",
		meta.Condition{Type: "mine/Ready", Status: "True", Reason: "R"}, apiclient.ConditionOptions{})
	require.NoError(t, err)
	require.Len(t, other.Status.Conditions, 1)
	var types []string
	for _, c := range p.Status.Conditions {
		types = append(types, c.Type)
	}
	require.Equal(t, []string{"other/Done", "mine/Ready"}, types, "no write lost")
	require.Equal(t, 3, spy.count(), "ours, the other's, ours again after the 409")
}

func TestRetryOnConflictTriesFiveTimesTenMillisecondsApart(t *testing.T) {
	clk := instantClock()
	c, err := apiclient.NewWithOptions(&apiclient.Config{Host: "http://127.0.0.1:1"}, apiclient.Options{Clock: clk})
	require.NoError(t, err)
	conflict := meta.NewStatusError(409, meta.ReasonConflict, "the object has been modified")
	calls := 0
	err = c.RetryOnConflict(context.Background(), apiclient.ConflictRetry{}, func(context.Context) error { calls++; return conflict })
	require.ErrorIs(t, err, conflict)
	require.Equal(t, 5, calls)
	require.Len(t, clk.Delays(), 4)
	for _, d := range clk.Delays() {
		require.GreaterOrEqual(t, d, 10*time.Millisecond)
		require.Less(t, d, 11*time.Millisecond)
	}

	for _, err := range []error{errors.New("boom"), meta.NewStatusError(404, meta.ReasonNotFound, "gone"), fieldManagerConflict()} {
		calls = 0
		got := c.RetryOnConflict(context.Background(), apiclient.ConflictRetry{}, func(context.Context) error { calls++; return err })
		require.ErrorIs(t, got, err)
		require.Equal(t, 1, calls, "%v is not retried", err)
	}
	calls = 0
	require.NoError(t, c.RetryOnConflict(context.Background(), apiclient.ConflictRetry{Steps: 3, Factor: 5}, func(context.Context) error {
		if calls++; calls < 3 {
			return conflict
		}
		return nil
	}))
	d := clk.Delays()[4:]
	require.Len(t, d, 2)
	require.GreaterOrEqual(t, d[1], 50*time.Millisecond, "the wait grows by Factor")
}

func fieldManagerConflict() error {
	e := meta.NewStatusError(409, meta.ReasonConflict, "Apply failed with 1 conflict")
	e.Status.Details = &meta.StatusDetails{Causes: []meta.StatusCause{{Type: "FieldManagerConflict", Field: ".data.k"}}}
	return e
}

// cmApply is the partial type an agent applies: only the fields it owns.
type cmApply struct {
	meta.TypeMeta
	Metadata struct {
		Name      string            `json:"name"`
		Namespace string            `json:"namespace,omitempty"`
		Labels    map[string]string `json:"labels,omitempty"`
	} `json:"metadata"`
	Data map[string]string `json:"data,omitempty"`
}

func (c *cmApply) GetName() string              { return c.Metadata.Name }
func (c *cmApply) GetNamespace() string         { return c.Metadata.Namespace }
func (c *cmApply) GetResourceVersion() string   { return "" }
func (c *cmApply) GetLabels() map[string]string { return c.Metadata.Labels }

func applied(name string, data map[string]string) *cmApply {
	a := &cmApply{TypeMeta: meta.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"}, Data: data}
	a.Metadata.Name = name
	return a
}

func TestApplyOwnsFieldsAndRefusesOthersWithoutForce(t *testing.T) {
	_, c, spy := fakeClient(t, nil)
	ctx := context.Background()
	got, err := apiclient.Apply(ctx, c, cmRef, applied("a", map[string]string{"k": "v", "mine": "1"}), apiclient.ApplyOptions{FieldManager: "agent"})
	require.NoError(t, err, "created by the apply")
	require.Equal(t, map[string]string{"k": "v", "mine": "1"}, got.Data)

	writes := spy.count()
	_, err = apiclient.Apply(ctx, c, cmRef, applied("a", map[string]string{"k": "w"}), apiclient.ApplyOptions{FieldManager: "other"})
	require.True(t, meta.IsFieldManagerConflict(err), "%v", err)
	require.Equal(t, writes+1, spy.count(), "an ownership conflict is not retried")

	got, err = apiclient.Apply(ctx, c, cmRef, applied("a", map[string]string{"k": "w"}), apiclient.ApplyOptions{FieldManager: "other", Force: true})
	require.NoError(t, err)
	require.Equal(t, map[string]string{"k": "w", "mine": "1"}, got.Data)

	got, err = apiclient.Apply(ctx, c, cmRef, applied("a", nil), apiclient.ApplyOptions{FieldManager: "agent"})
	require.NoError(t, err)
	require.Equal(t, map[string]string{"k": "w"}, got.Data, "a field the manager no longer applies is removed")

	_, err = apiclient.Apply(ctx, c, cmRef, applied("a", nil), apiclient.ApplyOptions{})
	require.ErrorContains(t, err, "FieldManager is required")
	require.True(t, strings.Contains(err.Error(), "configmaps"), err.Error())
}

func TestSetConditionWritesTheWholeObjectOfAKindWithoutStatusSubresource(t *testing.T) {
	srv, c, spy := fakeClient(t, nil)
	widgets := apiclient.Ref{GVR: meta.GVR{Group: "example.com", Version: "v1", Resource: "widgets"}, Namespace: "default"}
	require.NoError(t, srv.Register(fakeapiserver.Resource{GVR: widgets.GVR, Kind: "Widget", Namespaced: true}))
	_, err := srv.Create(widgets.GVR, map[string]any{"metadata": map[string]any{"name": "w", "namespace": "default"},
		"spec": map[string]any{"size": 3}})
	require.NoError(t, err)
	cond := meta.Condition{Type: "Ready", Status: meta.ConditionTrue, Reason: "R"}
	_, err = apiclient.SetCondition[conditioned](context.Background(), c, widgets, "w", cond, apiclient.ConditionOptions{})
	require.True(t, meta.IsNotFound(err), "no /status to write to: %v", err)
	p, err := apiclient.SetCondition[conditioned](context.Background(), c, widgets, "w", cond,
		apiclient.ConditionOptions{NoStatusSubresource: true})
	require.NoError(t, err)
	require.Len(t, p.Status.Conditions, 1)
	w, err := srv.Get(widgets.GVR, "default", "w")
	require.NoError(t, err)
	require.Contains(t, string(w.Bytes()), `"size":3`, "the rest of the object is written back as read")
	spy.mu.Lock()
	defer spy.mu.Unlock()
	require.Equal(t, "PUT /apis/example.com/v1/namespaces/default/widgets/w", spy.writes[len(spy.writes)-1])
}

// TestSetConditionWritesEveryRequiredMember: metav1.Condition marks type,
// status, lastTransitionTime, reason and message required (no omitempty),
// and a custom resource whose status uses its schema refuses a condition
// without one of them (422). SetCondition writes all five, as
// apimachinery's SetStatusCondition does by writing a whole
// metav1.Condition: an empty message as "", for a new condition and for one
// another writer left without it.
func TestSetConditionWritesEveryRequiredMember(t *testing.T) {
	srv, c, _ := fakeClient(t, nil)
	ctx := context.Background()
	stored := func() map[string]map[string]any {
		t.Helper()
		raw, err := srv.Get(podsRef.GVR, "default", "p")
		require.NoError(t, err)
		var p struct {
			Status struct {
				Conditions []map[string]any `json:"conditions"`
			} `json:"status"`
		}
		require.NoError(t, raw.DecodeInto(&p))
		byType := map[string]map[string]any{}
		for _, c := range p.Status.Conditions {
			byType[c["type"].(string)] = c
		}
		return byType
	}
	_, err := srv.Create(podsRef.GVR, map[string]any{"metadata": map[string]any{"name": "p", "namespace": "default"},
		"spec": map[string]any{"containers": []any{map[string]any{"name": "c", "image": "nginx"}}}})
	require.NoError(t, err)
	// another writer's condition, without reason or message
	_, err = srv.UpdateStatus(podsRef.GVR, map[string]any{"metadata": map[string]any{"name": "p", "namespace": "default"},
		"status": map[string]any{"phase": "Pending", "conditions": []any{map[string]any{"type": "other/Done", "status": "True",
			"lastTransitionTime": "2026-01-02T03:04:05Z"}}}})
	require.NoError(t, err)
	require.NotContains(t, stored()["other/Done"], "message")

	required := []string{"type", "status", "lastTransitionTime", "reason", "message"}

	_, err = apiclient.SetCondition[conditioned](ctx, c, podsRef, "p",
		meta.Condition{Type: "mine/Ready", Status: meta.ConditionTrue, Reason: "Up"}, apiclient.ConditionOptions{})
	require.NoError(t, err)
	mine := stored()["mine/Ready"]
	for _, k := range required {
		require.Contains(t, mine, k, "a new condition has every required member: %v", mine)
	}
	require.Equal(t, "", mine["message"])

	_, err = apiclient.SetCondition[conditioned](ctx, c, podsRef, "p",
		meta.Condition{Type: "other/Done", Status: meta.ConditionTrue}, apiclient.ConditionOptions{})
	require.NoError(t, err)
	other := stored()["other/Done"]
	for _, k := range required {
		require.Contains(t, other, k, "a condition read without reason and message is written with them: %v", other)
	}
	require.Equal(t, "2026-01-02T03:04:05Z", other["lastTransitionTime"], "the status did not change")
}
