package fakeapiserver_test

import (
	"net/url"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/fakeapiserver"
	"github.com/zerokube/zerokube/fakeapiserver/fakeapiservertest"
)

func createPods(t *testing.T, srv *fakeapiserver.Server, n int) {
	t.Helper()
	for i := range n {
		mustCreate(t, srv, podsGVR, pod("p"+strconv.Itoa(i), map[string]string{"i": strconv.Itoa(i)}))
	}
}

func TestListPagesShareOneSnapshot(t *testing.T) {
	srv := fakeapiservertest.Start(t)
	createPods(t, srv, 5)
	u := srv.URL() + "/api/v1/namespaces/default/pods?limit=2"
	code, p1 := get(t, u)
	require.Equal(t, 200, code)
	lm := p1["metadata"].(map[string]any)
	rv := lm["resourceVersion"]
	require.Equal(t, float64(3), lm["remainingItemCount"])
	require.Len(t, p1["items"], 2)
	item := p1["items"].([]any)[0].(map[string]any)
	require.NotContains(t, item, "kind", "list items come without kind")
	require.NotContains(t, item, "apiVersion")

	// Writes between pages do not show up: pages come from the snapshot.
	mustCreate(t, srv, podsGVR, pod("p00", nil))
	require.NoError(t, srv.Delete(podsGVR, "default", "p4"))

	code, p2 := get(t, u+"&continue="+url.QueryEscape(lm["continue"].(string)))
	require.Equal(t, 200, code, p2)
	lm2 := p2["metadata"].(map[string]any)
	require.Equal(t, rv, lm2["resourceVersion"])
	require.Equal(t, float64(1), lm2["remainingItemCount"])
	code, p3 := get(t, u+"&continue="+url.QueryEscape(lm2["continue"].(string)))
	require.Equal(t, 200, code, p3)
	lm3 := p3["metadata"].(map[string]any)
	require.NotContains(t, lm3, "continue")
	require.NotContains(t, lm3, "remainingItemCount")
	require.Len(t, p3["items"], 1)
	require.Equal(t, "p4", p3["items"].([]any)[0].(map[string]any)["metadata"].(map[string]any)["name"])
}

func TestContinueTokenExpiresWithCompaction(t *testing.T) {
	srv := fakeapiservertest.Start(t)
	createPods(t, srv, 3)
	code, p1 := get(t, srv.URL()+"/api/v1/pods?limit=1")
	require.Equal(t, 200, code)
	mustCreate(t, srv, podsGVR, pod("later", nil))
	srv.Compact(0)
	code, st := get(t, srv.URL()+"/api/v1/pods?limit=1&continue="+url.QueryEscape(p1["metadata"].(map[string]any)["continue"].(string)))
	require.Equal(t, 410, code)
	require.Equal(t, "Expired", st["reason"])
	fresh := st["metadata"].(map[string]any)["continue"].(string)
	require.NotEmpty(t, fresh)
	code, p := get(t, srv.URL()+"/api/v1/pods?limit=10&continue="+url.QueryEscape(fresh))
	require.Equal(t, 200, code, p)
	require.Len(t, p["items"], 2, "the inconsistent continuation serves the rest (p1, p2) as of now")
	require.Equal(t, int64(1), srv.Stats().Faults[fakeapiserver.FaultCompact])
}

func TestListParameterValidation(t *testing.T) {
	srv := fakeapiservertest.Start(t)
	createPods(t, srv, 1)
	_, p := get(t, srv.URL()+"/api/v1/pods?limit=1")
	cont := url.QueryEscape(p["metadata"].(map[string]any)["resourceVersion"].(string))
	for _, tc := range []struct {
		query string
		code  int
	}{
		{"resourceVersionMatch=NotOlderThan", 422},
		{"resourceVersionMatch=Exact&resourceVersion=0", 422},
		{"resourceVersionMatch=Sometimes&resourceVersion=1", 422},
		{"sendInitialEvents=true", 422},
		{"resourceVersionMatch=NotOlderThan&resourceVersion=1&continue=x", 422},
		{"resourceVersion=abc", 400},
		{"limit=abc", 400},
		{"continue=garbage!", 400},
		{"labelSelector=a%20in%20(", 400},
		{"fieldSelector=spec.unknown%3Dx", 400},
		{"continue=" + cont + "&resourceVersion=5", 400},
		{"fieldSelector=status.phase%3DRunning", 200},
		{"labelSelector=i%3D0&resourceVersion=0", 200},
	} {
		t.Run(tc.query, func(t *testing.T) {
			code, st := get(t, srv.URL()+"/api/v1/pods?"+tc.query)
			require.Equal(t, tc.code, code, st)
		})
	}
}

func TestListSelectorsAndResourceVersionRules(t *testing.T) {
	srv := fakeapiservertest.Start(t, fakeapiserver.Options{TooLargeWait: 50_000_000})
	createPods(t, srv, 4)
	code, l := get(t, srv.URL()+"/api/v1/namespaces/default/pods?labelSelector=i+in+(1,2)&limit=1")
	require.Equal(t, 200, code)
	require.Len(t, l["items"], 1)
	require.NotContains(t, l["metadata"], "remainingItemCount", "absent with a selector")
	require.Contains(t, l["metadata"], "continue")

	code, l = get(t, srv.URL()+"/api/v1/pods?fieldSelector=metadata.name%3Dp3")
	require.Equal(t, 200, code)
	require.Len(t, l["items"], 1)

	code, l = get(t, srv.URL()+"/api/v1/pods?resourceVersion=0&limit=1")
	require.Equal(t, 200, code)
	require.Len(t, l["items"], 4, "RV 0 ignores limit")

	rv := srv.ResourceVersion()
	mustCreate(t, srv, podsGVR, pod("p9", nil))
	code, l = get(t, srv.URL()+"/api/v1/pods?resourceVersion="+strconv.FormatInt(rv, 10)+"&resourceVersionMatch=Exact")
	require.Equal(t, 200, code)
	require.Len(t, l["items"], 4, "Exact serves the old state")
	require.Equal(t, strconv.FormatInt(rv, 10), l["metadata"].(map[string]any)["resourceVersion"])

	code, st := get(t, srv.URL()+"/api/v1/pods?resourceVersion=999999&resourceVersionMatch=NotOlderThan")
	require.Equal(t, 504, code)
	require.Equal(t, "Timeout", st["reason"])
	require.Equal(t, float64(1), st["details"].(map[string]any)["retryAfterSeconds"])

	code, l = get(t, srv.URL()+"/api/v1/namespaces/kube-system/pods")
	require.Equal(t, 200, code)
	require.Equal(t, []any{}, l["items"], "empty lists are [] not null")
}
