package fakeapiserver_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/fakeapiserver"
	"github.com/zerokube/zerokube/fakeapiserver/fakeapiservertest"
)

// A dryRun=All write answers as the write would, and leaves no trace: no
// object, no resourceVersion, no event.
func TestDryRunWritesAnswerAndStoreNothing(t *testing.T) {
	srv := fakeapiservertest.Start(t, fakeapiserver.Options{Logger: quiet()})
	u := srv.URL() + "/api/v1/namespaces/default/configmaps"
	code, _ := call(t, "POST", u, "application/json", `{"metadata":{"name":"a"},"data":{"k":"v"}}`)
	require.Equal(t, 201, code)
	rv := srv.ResourceVersion()
	w := openWatch(t, fmt.Sprintf("%s?watch=1&resourceVersion=%d", u, rv), nil)

	code, b := call(t, "POST", u+"?dryRun=All", "application/json", `{"metadata":{"generateName":"g-"},"data":{"k":"v"}}`)
	require.Equal(t, 201, code, b)
	md := b["metadata"].(map[string]any)
	require.Regexp(t, `^g-\w{5}$`, md["name"], "named as a create would name it")
	require.NotEmpty(t, md["uid"])
	require.NotContains(t, md, "resourceVersion", "nothing was stored at any version")

	code, b = call(t, "PUT", u+"/a?dryRun=All", "application/json", `{"metadata":{"name":"a"},"data":{"k":"dry"}}`)
	require.Equal(t, 200, code, b)
	require.Equal(t, "dry", b["data"].(map[string]any)["k"])
	code, b = call(t, "PATCH", u+"/a?dryRun=All", "application/merge-patch+json", `{"data":{"k":"patched"}}`)
	require.Equal(t, 200, code, b)
	require.Equal(t, "patched", b["data"].(map[string]any)["k"])
	code, b = call(t, "PUT", u+"/a?dryRun=All", "application/json", `{"metadata":{"name":"a","resourceVersion":"1"}}`)
	require.Equal(t, 409, code, "preconditions hold in a dry run: %v", b)
	code, b = call(t, "DELETE", u+"/a", "application/json", `{"dryRun":["All"]}`)
	require.Equal(t, 200, code, b)
	require.Equal(t, "Success", b["status"])

	require.Equal(t, rv, srv.ResourceVersion())
	code, b = call(t, "GET", u+"/a", "", "")
	require.Equal(t, 200, code)
	require.Equal(t, "v", b["data"].(map[string]any)["k"])
	code, _ = call(t, "POST", u, "application/json", `{"metadata":{"name":"sentinel"}}`)
	require.Equal(t, 201, code)
	ev := w.mustNext()
	require.Equal(t, "ADDED", ev.Type)
	require.Equal(t, "sentinel", nameOf(ev), "the first event after the dry runs is the sentinel's")
}
