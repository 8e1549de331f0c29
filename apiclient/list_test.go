package apiclient_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/apiclient"
	"github.com/zerokube/zerokube/meta"
	"github.com/zerokube/zerokube/watchstream"
)

func TestRefPaths(t *testing.T) {
	for _, tc := range []struct {
		ref  apiclient.Ref
		want string
	}{
		{apiclient.Ref{GVR: meta.GVR{Version: "v1", Resource: "pods"}, Namespace: "ns"}, "/api/v1/namespaces/ns/pods"},
		{apiclient.Ref{GVR: meta.GVR{Version: "v1", Resource: "pods"}}, "/api/v1/pods"},
		{apiclient.Ref{GVR: meta.GVR{Version: "v1", Resource: "nodes"}}, "/api/v1/nodes"},
		{apiclient.Ref{GVR: meta.GVR{Group: "apps", Version: "v1", Resource: "deployments"}, Namespace: "x"},
			"/apis/apps/v1/namespaces/x/deployments"},
		{apiclient.Ref{GVR: meta.GVR{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "clusterroles"}},
			"/apis/rbac.authorization.k8s.io/v1/clusterroles"},
	} {
		require.Equal(t, tc.want, tc.ref.Path())
	}
	require.Equal(t, "/api/v1/namespaces/ns/pods/a", podsRef.Namespaced("ns").ObjectPath("a"))
}

func TestListSendsEveryOption(t *testing.T) {
	var got string
	c, _ := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		got = r.URL.Path + "?" + r.URL.RawQuery
		_, _ = w.Write([]byte(`{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"9"},"items":[]}`))
	})
	lm, err := apiclient.List[pod](context.Background(), c, podsRef, apiclient.ListOptions{
		LabelSelector: "app=web", FieldSelector: "metadata.name=a", Limit: 50, Continue: "tok",
		ResourceVersion: "5", ResourceVersionMatch: "NotOlderThan", TimeoutSeconds: 7,
	}, func(*pod) error { return nil })
	require.NoError(t, err)
	require.Equal(t, "9", lm.ResourceVersion)
	require.Equal(t, "/api/v1/namespaces/default/pods?continue=tok&fieldSelector=metadata.name%3Da&"+
		"labelSelector=app%3Dweb&limit=50&resourceVersion=5&resourceVersionMatch=NotOlderThan&timeoutSeconds=7", got)
}

func TestListFillsKindAndAPIVersionFromTheList(t *testing.T) {
	c, _ := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(`{"kind":"DeploymentList","apiVersion":"apps/v1","metadata":{},"items":[` +
			`{"metadata":{"name":"a"}},{"kind":"Other","apiVersion":"x/v1","metadata":{"name":"b"}}]}`))
	})
	var kinds []string
	_, err := apiclient.List[meta.Raw](context.Background(), c, podsRef, apiclient.ListOptions{}, func(r *meta.Raw) error {
		kinds = append(kinds, r.Name+":"+r.Kind+":"+r.APIVersion)
		return nil
	})
	require.NoError(t, err)
	require.Equal(t, []string{"a:Deployment:apps/v1", "b:Other:x/v1"}, kinds)
}

func TestListAcceptsNullItems(t *testing.T) {
	c, _ := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(`{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"3"},"items":null}`))
	})
	n := 0
	lm, err := apiclient.List[pod](context.Background(), c, podsRef, apiclient.ListOptions{}, func(*pod) error { n++; return nil })
	require.NoError(t, err)
	require.Zero(t, n)
	require.Equal(t, "3", lm.ResourceVersion)
}

func TestListRejectsBadBodies(t *testing.T) {
	for name, body := range map[string]string{
		"truncated":        `{"kind":"PodList","apiVersion":"v1","metadata":{},"items":[{"metadata":{"name":"a"}},{"metadata":{"na`,
		"not an object":    `[1,2]`,
		"items not array":  `{"items":{}}`,
		"item not object":  `{"items":[1]}`,
		"trailing garbage": `{"items":[]} {}`,
		"empty":            ``,
	} {
		t.Run(name, func(t *testing.T) {
			c, _ := newServer(t, func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte(body)) })
			_, err := apiclient.List[pod](context.Background(), c, podsRef, apiclient.ListOptions{}, func(*pod) error { return nil })
			require.Error(t, err)
			require.Contains(t, err.Error(), "apiclient: list v1/pods in namespace default")
		})
	}
}

func TestListCallbackErrorStopsTheList(t *testing.T) {
	c, _ := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(`{"items":[{"metadata":{"name":"a"}},{"metadata":{"name":"b"}}]}`))
	})
	stop := errors.New("enough")
	n := 0
	_, err := apiclient.List[pod](context.Background(), c, podsRef, apiclient.ListOptions{}, func(*pod) error { n++; return stop })
	require.ErrorIs(t, err, stop)
	require.Equal(t, 1, n)
}

// pagedServer serves total pods in pages of the requested limit, checking
// the server's rules on continue and resourceVersion.
func pagedServer(t *testing.T, total int) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		start := 0
		if cont := q.Get("continue"); cont != "" {
			if q.Has("resourceVersion") || q.Has("resourceVersionMatch") {
				writeStatus(w, 400, "BadRequest", "specifying resource version is not allowed when using continue", "")
				return
			}
			start, _ = strconv.Atoi(cont)
		}
		limit, _ := strconv.Atoi(q.Get("limit"))
		end := min(start+limit, total)
		var b strings.Builder
		b.WriteString(`{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"777"`)
		if end < total {
			fmt.Fprintf(&b, `,"continue":"%d","remainingItemCount":%d`, end, total-end)
		}
		b.WriteString(`},"items":[`)
		for i := start; i < end; i++ {
			if i > start {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"metadata":{"name":"pod-%d","namespace":"default","resourceVersion":"%d"},"status":{"phase":"Running"}}`, i, i+1)
		}
		b.WriteString(`]}`)
		_, _ = w.Write([]byte(b.String()))
	}
}

func TestListAllReadsTenThousandItemsPageByPage(t *testing.T) {
	c, _ := newServer(t, pagedServer(t, 10000))
	var pages []int
	next := 0
	lm, err := apiclient.ListAll[pod](context.Background(), c, podsRef,
		apiclient.ListOptions{Limit: 500, ResourceVersion: "0", ResourceVersionMatch: "NotOlderThan"},
		func(n int, lm meta.ListMeta) { pages = append(pages, n) },
		func(p *pod) error {
			require.Equal(t, fmt.Sprintf("pod-%d", next), p.Name)
			require.Equal(t, "Pod", p.Kind)
			next++
			return nil
		})
	require.NoError(t, err)
	require.Equal(t, 10000, next)
	require.Len(t, pages, 20)
	require.Equal(t, "777", lm.ResourceVersion)
	require.Empty(t, lm.Continue)
}

func TestListAllReturnsGoneWhenTheTokenExpires(t *testing.T) {
	c, _ := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Has("continue") {
			writeStatus(w, 410, "Expired", "The provided continue parameter is too old", "")
			return
		}
		_, _ = w.Write([]byte(`{"metadata":{"continue":"x"},"items":[]}`))
	})
	_, err := apiclient.ListAll[pod](context.Background(), c, podsRef, apiclient.ListOptions{Limit: 1}, nil,
		func(*pod) error { return nil })
	require.True(t, meta.IsGone(err), "%v", err)
	require.Contains(t, err.Error(), "page 2")
}

func TestListUnmarshalOptionsApplyToItems(t *testing.T) {
	c, _ := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		assert.Empty(t, r.URL.Query(), "decode options are not sent")
		_, _ = w.Write([]byte(`{"kind":"PodList","apiVersion":"v1","metadata":{},"items":[` +
			`{"metadata":{"name":"a","managedFields":[{"manager":"m"}]}}]}`))
	})
	for _, skip := range []bool{false, true} {
		opts := apiclient.ListOptions{}
		if skip {
			opts.Decode.Unmarshal = meta.SkipManagedFields()
		}
		var mf []meta.ManagedFields
		_, err := apiclient.List[pod](context.Background(), c, podsRef, opts, func(p *pod) error {
			mf = append(mf, p.ManagedFields)
			return nil
		})
		require.NoError(t, err)
		if skip {
			require.Equal(t, []meta.ManagedFields{nil}, mf)
		} else {
			require.Equal(t, []meta.ManagedFields{meta.ManagedFields(`[{"manager":"m"}]`)}, mf)
		}
	}
}

func TestListAcceptsDuplicateNamesLastOneWinsAsKubeAPIServer(t *testing.T) {
	c, _ := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(`{"kind":"PodList","apiVersion":"v1","metadata":{},"items":[` +
			`{"metadata":{"name":"a","name":"b"}}]}`))
	})
	var slim, raw []string
	_, err := apiclient.List[pod](context.Background(), c, podsRef, apiclient.ListOptions{}, func(p *pod) error {
		slim = append(slim, p.Name)
		return nil
	})
	require.NoError(t, err)
	_, err = apiclient.List[meta.Raw](context.Background(), c, podsRef, apiclient.ListOptions{}, func(r *meta.Raw) error {
		raw = append(raw, r.Name)
		return nil
	})
	require.NoError(t, err)
	require.Equal(t, []string{"b"}, slim)
	require.Equal(t, []string{"b"}, raw)
}

// TestUndecodableItemIsNamed: an item whose JSON does not fit the caller's
// type fails the page with a *watchstream.DecodeError (Undecodable) naming
// it, its index and the JSON path; with SkipUndecodable it is reported and the others are kept.
func TestUndecodableItemIsNamed(t *testing.T) {
	body := `{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"9"},"items":[` +
		`{"metadata":{"name":"a","namespace":"ns"},"spec":{"port":1}},` +
		`{"metadata":{"name":"b","namespace":"ns"},"spec":{"port":"http"}},` +
		`{"spec":{"port":"http"},"metadata":{"name":"c","namespace":"ns"}},` +
		`{"metadata":{"name":"d","namespace":"ns"},"spec":{"port":4}}]}`
	c, _ := newServer(t, func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte(body)) })
	type ported struct {
		meta.TypeMeta
		meta.ObjectMeta `json:"metadata"`
		Spec            struct {
			Port int32 `json:"port"`
		} `json:"spec"`
	}
	var names []string
	each := func(p *ported) error { names = append(names, p.Name); return nil }
	_, err := apiclient.List[ported](context.Background(), c, podsRef, apiclient.ListOptions{}, each)
	var de *watchstream.DecodeError
	require.ErrorAs(t, err, &de)
	require.Equal(t, watchstream.DecodeError{Body: watchstream.BodyList, Problem: watchstream.Undecodable,
		Object: "ns/b", Item: 1, Offset: de.Offset, Path: "/spec/port", Err: de.Err}, *de)
	require.Contains(t, err.Error(), "list item 2 at byte ", "the second item, counted from 1")
	require.Contains(t, err.Error(), "(object ns/b) at /spec/port: does not fit the type")

	names = nil
	var skipped []watchstream.DecodeError
	lm, err := apiclient.List[ported](context.Background(), c, podsRef, apiclient.ListOptions{
		Decode: watchstream.Options{SkipUndecodable: func(e *watchstream.DecodeError) { skipped = append(skipped, *e) }}}, each)
	require.NoError(t, err)
	require.Equal(t, "9", lm.ResourceVersion)
	require.Equal(t, []string{"a", "d"}, names)
	require.Len(t, skipped, 2)
	require.Equal(t, "ns/b", skipped[0].Object)
	require.Equal(t, "/spec/port", skipped[0].Path)
	require.Equal(t, "ns/c", skipped[1].Object, "named even when metadata comes after the failing field")
	require.Equal(t, 2, skipped[1].Item)
}
