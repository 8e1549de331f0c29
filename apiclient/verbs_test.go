package apiclient_test

import (
	"context"
	"io"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/apiclient"
	"github.com/zerokube/zerokube/meta"
)

// recorded is one request as the server saw it.
type recorded struct {
	method, path, contentType, body string
}

// echoServer records each request and answers with reply.
func echoServer(t *testing.T, code int, reply string) (*apiclient.Client, chan recorded) {
	reqs := make(chan recorded, 1)
	c, _ := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		reqs <- recorded{r.Method, r.URL.Path, r.Header.Get("Content-Type"), string(b)}
		w.WriteHeader(code)
		_, _ = w.Write([]byte(reply))
	})
	return c, reqs
}

const podReply = `{"kind":"Pod","apiVersion":"v1","metadata":{"name":"a","namespace":"default","resourceVersion":"11"},"status":{"phase":"Pending"}}`

func TestGet(t *testing.T) {
	c, reqs := echoServer(t, 200, podReply)
	p, err := apiclient.Get[pod](context.Background(), c, podsRef, "a")
	require.NoError(t, err)
	require.Equal(t, "Pending", p.Status.Phase)
	require.Equal(t, recorded{"GET", "/api/v1/namespaces/default/pods/a", "", ""}, <-reqs)
}

func TestCreateUsesTheObjectsNamespaceWhenRefHasNone(t *testing.T) {
	c, reqs := echoServer(t, 201, podReply)
	in := &pod{ObjectMeta: meta.ObjectMeta{Name: "a", Namespace: "default"}}
	out, err := apiclient.Create(context.Background(), c, apiclient.Ref{GVR: podsRef.GVR}, in)
	require.NoError(t, err)
	require.Equal(t, "11", out.ResourceVersion)
	r := <-reqs
	require.Equal(t, "POST", r.method)
	require.Equal(t, "/api/v1/namespaces/default/pods", r.path)
	require.Equal(t, "application/json", r.contentType)
	require.Contains(t, r.body, `"name":"a","namespace":"default"`)
}

func TestUpdateSendsTheResourceVersionAndReportsConflicts(t *testing.T) {
	c, reqs := echoServer(t, 409, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Conflict","code":409,`+
		`"message":"Operation cannot be fulfilled on pods \"a\": the object has been modified"}`)
	in := &pod{ObjectMeta: meta.ObjectMeta{Name: "a", Namespace: "default", ResourceVersion: "10"}}
	_, err := apiclient.Update(context.Background(), c, podsRef, in)
	require.True(t, meta.IsConflict(err), "%v", err)
	r := <-reqs
	require.Equal(t, "PUT", r.method)
	require.Equal(t, "/api/v1/namespaces/default/pods/a", r.path)
	require.Contains(t, r.body, `"resourceVersion":"10"`)
}

func TestPatchContentTypes(t *testing.T) {
	for _, pt := range []meta.PatchType{meta.MergePatch, meta.JSONPatch, meta.StrategicMergePatch} {
		c, reqs := echoServer(t, 200, podReply)
		_, err := apiclient.Patch[pod](context.Background(), c, podsRef, "a", pt, []byte(`{"metadata":{"labels":{"x":"y"}}}`))
		require.NoError(t, err)
		r := <-reqs
		require.Equal(t, "PATCH", r.method)
		require.Equal(t, string(pt), r.contentType)
		require.Equal(t, `{"metadata":{"labels":{"x":"y"}}}`, r.body)
	}
}

func TestDeleteSendsOptions(t *testing.T) {
	c, reqs := echoServer(t, 200, `{"kind":"Status","apiVersion":"v1","status":"Success","details":{"name":"a","kind":"configmaps"}}`)
	zero := int64(0)
	uid, rv := "u-1", "10"
	err := c.Delete(context.Background(), podsRef, "a", apiclient.DeleteOptions{
		PropagationPolicy: "Foreground", GracePeriodSeconds: &zero,
		Preconditions: &meta.Preconditions{UID: &uid, ResourceVersion: &rv},
	})
	require.NoError(t, err)
	r := <-reqs
	require.Equal(t, "DELETE", r.method)
	require.Equal(t, "/api/v1/namespaces/default/pods/a", r.path)
	require.JSONEq(t, `{"kind":"DeleteOptions","apiVersion":"v1","propagationPolicy":"Foreground",`+
		`"gracePeriodSeconds":0,"preconditions":{"uid":"u-1","resourceVersion":"10"}}`, r.body)
}

func TestDeleteNotFound(t *testing.T) {
	c, _ := echoServer(t, 404, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","code":404,"message":"pods \"a\" not found"}`)
	err := c.Delete(context.Background(), podsRef, "a", apiclient.DeleteOptions{})
	require.True(t, meta.IsNotFound(err))
}

func TestGetRawKeepsEveryField(t *testing.T) {
	c, _ := echoServer(t, 200, podReply)
	r, err := apiclient.Get[meta.Raw](context.Background(), c, podsRef, "a")
	require.NoError(t, err)
	require.Equal(t, podReply, string(r.Bytes()))
}
