package conformance

import (
	"context"
	"crypto/rand"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/apiclient"
	"github.com/zerokube/zerokube/discovery"
	"github.com/zerokube/zerokube/informer"
	"github.com/zerokube/zerokube/meta"
)

// Name resolution (package discovery) against both servers: kubectl's rules
// on built-in kinds, the legacy walk finding what aggregated discovery
// finds, and a custom resource installed after discovery was read, found
// by its short name.

// legacyOnly asks for plain JSON whatever the client asked for, as a client
// of a server without aggregated discovery gets it.
type legacyOnly struct{ base http.RoundTripper }

func (l legacyOnly) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	req.Header.Set("Accept", "application/json")
	return l.base.RoundTrip(req)
}

func discoveryClient(t *testing.T, tg *target, rt http.RoundTripper) *discovery.Client {
	t.Helper()
	c, err := apiclient.NewWithOptions(tg.cfg, apiclient.Options{Transport: rt})
	require.NoError(t, err)
	t.Cleanup(c.CloseIdleConnections)
	return discovery.New(c, discovery.Options{Logger: quiet()})
}

func TestResolveBuiltinNamesAsKubectlDoes(t *testing.T) {
	onBoth(t, func(t *testing.T, tg *target) {
		d := discoveryClient(t, tg, nil)
		for _, tc := range []struct {
			in         string
			want       meta.GVR
			namespaced bool
		}{
			{"po", meta.GVR{Version: "v1", Resource: "pods"}, true},
			{"pod", meta.GVR{Version: "v1", Resource: "pods"}, true},
			{"Pod", meta.GVR{Version: "v1", Resource: "pods"}, true},
			{"cm", meta.GVR{Version: "v1", Resource: "configmaps"}, true},
			{"ns", meta.GVR{Version: "v1", Resource: "namespaces"}, false},
			{"Node", meta.GVR{Version: "v1", Resource: "nodes"}, false},
			{"events", meta.GVR{Version: "v1", Resource: "events"}, true}, // core before events.k8s.io
			{"deploy", meta.GVR{Group: "apps", Version: "v1", Resource: "deployments"}, true},
			{"deployments.apps", meta.GVR{Group: "apps", Version: "v1", Resource: "deployments"}, true},
			{"deployments.v1.apps", meta.GVR{Group: "apps", Version: "v1", Resource: "deployments"}, true},
			{"ReplicaSet.v1.apps", meta.GVR{Group: "apps", Version: "v1", Resource: "replicasets"}, true},
			{"leases.coordination.k8s.io", meta.GVR{Group: "coordination.k8s.io", Version: "v1", Resource: "leases"}, true},
		} {
			r, err := d.Resolve(t.Context(), tc.in)
			require.NoError(t, err, tc.in)
			require.Equal(t, tc.want, r.GVR, tc.in)
			require.Equal(t, tc.namespaced, r.Namespaced, tc.in)
		}
		_, err := d.Resolve(t.Context(), "deployments.extensions")
		require.True(t, discovery.IsNotFound(err), "%v", err)
	})
}

func TestTheLegacyWalkFindsWhatAggregatedDiscoveryFinds(t *testing.T) {
	onBoth(t, func(t *testing.T, tg *target) {
		agg, err := discoveryClient(t, tg, tlsTransport(tg.cfg.TLS.CAData)).Index(t.Context())
		require.NoError(t, err)
		legacy, err := discoveryClient(t, tg, legacyOnly{tlsTransport(tg.cfg.TLS.CAData)}).Index(t.Context())
		require.NoError(t, err)
		require.Equal(t, agg.Resources(), legacy.Resources())
		require.NotEmpty(t, agg.Resources())
	})
}

func TestACustomResourceInstalledAfterDiscoveryIsFoundByItsShortName(t *testing.T) {
	onBoth(t, func(t *testing.T, tg *target) {
		ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
		defer cancel()
		b := make([]byte, 4)
		_, _ = rand.Read(b)
		group := fmt.Sprintf("r%x.conformance.zerokube.dev", b)
		d := discoveryClient(t, tg, nil)
		_, err := d.Resolve(ctx, "gdg")
		require.True(t, discovery.IsNotFound(err), "before the CRD: %v", err)

		installGadgets(t, tg, group)
		var r discovery.Resource
		for {
			// Each miss reads discovery again, at most once a second: no
			// sleep needed while the server catches up with the CRD.
			if r, err = d.Resolve(ctx, "gdg"); !discovery.IsNotFound(err) {
				break
			}
		}
		require.NoError(t, err)
		require.Equal(t, meta.GVR{Group: group, Version: "v1", Resource: "gadgets"}, r.GVR)
		require.Equal(t, "Gadget", r.Kind)
		require.Equal(t, "gadget", r.SingularName)
		require.True(t, r.Namespaced)
		require.Equal(t, []string{"gdg"}, r.ShortNames)
		require.True(t, r.Has("watch"))

		ns := tg.namespace(t)
		tg.must(t, 201, "POST", r.Ref(ns).Path(), `{"apiVersion":"`+r.APIVersion()+`","kind":"Gadget","metadata":{"name":"g1"}}`)
		byName, err := d.Resolve(ctx, "gadget."+group)
		require.NoError(t, err)
		inf := informer.New[meta.Raw](d.APIClient(), byName.Ref(ns), informer.Options[*meta.Raw]{Observe: informer.ObserveOptions{Logger: quiet()}})
		runCtx, stop := context.WithCancel(ctx)
		done := make(chan error, 1)
		go func() { done <- inf.Run(runCtx) }()
		defer func() { stop(); require.NoError(t, <-done) }()
		require.NoError(t, inf.WaitForSync(ctx))
		// A list at resourceVersion 0 is the watch cache's, which may not
		// hold an object of a custom resource created a moment ago yet;
		// the watch brings it.
		require.Eventually(t, func() bool { return len(inf.Lister().List(meta.LabelSelector{})) == 1 },
			10*time.Second, 10*time.Millisecond)
	})
}

// installGadgets creates the CustomResourceDefinition of the namespaced
// kind Gadget (plural gadgets, short name gdg) of group/v1, on either
// server, and deletes it when the test ends.
func installGadgets(t *testing.T, tg *target, group string) {
	t.Helper()
	crd := `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",` +
		`"metadata":{"name":"gadgets.` + group + `"},"spec":{"group":"` + group + `",` +
		`"names":{"plural":"gadgets","singular":"gadget","kind":"Gadget","shortNames":["gdg"]},"scope":"Namespaced",` +
		`"versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object",` +
		`"x-kubernetes-preserve-unknown-fields":true}}}]}}`
	tg.must(t, 201, "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd)
	t.Cleanup(func() {
		tg.do(t, "DELETE", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gadgets."+group, "")
	})
}
