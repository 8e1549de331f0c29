package discovery

import (
	"os"
	"testing"
)

// FuzzParse feeds discovery documents, aggregated and legacy, to the
// parsers and resolves names against what they find: network input must
// never panic them.
func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"kind":"APIGroupDiscoveryList","items":[{"metadata":{"name":"apps"},"versions":[{"version":"v1",` +
		`"freshness":"Current","resources":[{"resource":"deployments","responseKind":{"kind":"Deployment"},"scope":"Namespaced",` +
		`"singularResource":"deployment","shortNames":["deploy"],"subresources":[{"subresource":"status"}]}]}]}]}`))
	f.Add([]byte(`{"kind":"APIResourceList","resources":[{"name":"pods","kind":"Pod","namespaced":true},{"name":"pods/status"}]}`))
	f.Add([]byte(`{"kind":"APIGroupDiscoveryList","items":[{"versions":[{"version":"v1","freshness":"Stale"}]},null]}`))
	for _, file := range []string{"testdata/kube-apiserver-v1.37.2-api.json", "testdata/kube-apiserver-v1.37.2-apis.json"} {
		b, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		groups, _, _ := parseAggregated("/apis", body)
		v, err := parseVersion("/apis/x/v1", "x", "v1", body)
		if err == nil {
			groups = append(groups, Group{Name: "x", Versions: []Version{v}})
		}
		x := NewIndex(groups)
		for _, name := range []string{"deploy", "pods", "Pod", "deployments.v1.apps", "x/v1/pods", "a.b", ""} {
			_, _ = x.Resolve(name)
		}
	})
}
