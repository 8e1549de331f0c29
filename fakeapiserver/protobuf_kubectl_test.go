package fakeapiserver_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/fakeapiserver"
	"github.com/zerokube/zerokube/fakeapiserver/fakeapiservertest"
)

// Issue 23: kubectl create <kind> sends its body as protobuf (client-go's
// typed clients do for built-in kinds) and asks for protobuf back; the fake
// answered 415 and kubectl stopped.
func TestKubectlCreateSubcommandsWorkOverProtobuf(t *testing.T) {
	srv := fakeapiservertest.Start(t, fakeapiserver.Options{Logger: quiet()})
	k := newKubectl(t, srv)
	for _, tc := range []struct {
		args    []string
		created string
		check   []string // kubectl get <check[0]> -o jsonpath=<check[1]> prints check[2]
	}{
		{[]string{"configmap", "cm", "--from-literal=a=b", "--from-literal=c=d"}, "configmap/cm created",
			[]string{"configmap/cm", "{.data.c}", "d"}},
		{[]string{"secret", "generic", "s", "--from-literal=pw=hunter2"}, "secret/s created",
			[]string{"secret/s", "{.data.pw}", "aHVudGVyMg=="}},
		{[]string{"namespace", "team-a"}, "namespace/team-a created",
			[]string{"namespace/team-a", "{.metadata.name}", "team-a"}},
		{[]string{"deployment", "web", "--image=nginx:1.27", "--replicas=3", "--port=80"}, "deployment.apps/web created",
			[]string{"deployment/web", "{.spec.replicas}/{.spec.template.spec.containers[0].ports[0].containerPort}", "3/80"}},
		{[]string{"service", "clusterip", "svc", "--tcp=80:8080"}, "service/svc created",
			[]string{"service/svc", "{.spec.ports[0].port}/{.spec.ports[0].targetPort}", "80/8080"}},
		{[]string{"job", "once", "--image=busybox", "--", "echo", "hi"}, "job.batch/once created",
			[]string{"job/once", "{.spec.template.spec.containers[0].command}", `["echo","hi"]`}},
	} {
		t.Run(tc.created, func(t *testing.T) {
			out := k.run(append([]string{"create"}, tc.args...)...)
			require.Contains(t, out, tc.created)
			got := k.run("get", tc.check[0], "-o", "jsonpath="+tc.check[1])
			require.Equal(t, tc.check[2], strings.TrimSpace(got))
		})
	}
	// kubectl get -o json and delete ask for protobuf too where they can.
	require.Contains(t, k.run("get", "configmap", "cm", "-o", "json"), `"c": "d"`)
	require.Contains(t, k.run("delete", "configmap", "cm"), `configmap "cm" deleted`)
	require.Contains(t, k.fails("get", "configmap", "cm"), `configmaps "cm" not found`)
}
