package discovery

import (
	"context"
	"fmt"
	"strings"

	"github.com/go-json-experiment/json"

	"github.com/zerokube/zerokube/apiclient"
	"github.com/zerokube/zerokube/meta"
)

// AcceptAggregated asks for aggregated discovery (apidiscovery.k8s.io/v2)
// and falls back to the legacy documents, as client-go's discovery client
// does. Neither offers v2beta1: kube-apiserver stopped serving it by
// default in 1.33 (kubernetes/kubernetes#130347), and client-go stopped
// asking for it in v0.37 (kubernetes/kubernetes#138271).
const AcceptAggregated = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json"

// The aggregated document, as much of it as resolution needs.
type aggregatedList struct {
	Kind  string `json:"kind"`
	Items []struct {
		Metadata struct {
			Name string `json:"name"`
		} `json:"metadata"`
		Versions []struct {
			Version   string `json:"version"`
			Freshness string `json:"freshness"`
			Resources []struct {
				Resource     string `json:"resource"`
				ResponseKind *struct {
					Kind string `json:"kind"`
				} `json:"responseKind"`
				Scope            string   `json:"scope"`
				SingularResource string   `json:"singularResource"`
				Verbs            []string `json:"verbs"`
				ShortNames       []string `json:"shortNames"`
				Categories       []string `json:"categories"`
				Subresources     []struct {
					Subresource string `json:"subresource"`
				} `json:"subresources"`
			} `json:"resources"`
		} `json:"versions"`
	} `json:"items"`
}

// fetch reads what the server serves: aggregated discovery from /api and
// /apis when the server answers it, else the legacy walk (walk.go). It
// reports which of the two it used.
func fetch(ctx context.Context, c *apiclient.Client) ([]Group, bool, error) {
	core, legacyCore, err := fetchAggregated(ctx, c, "/api")
	if err != nil {
		return nil, false, err
	}
	if legacyCore != nil {
		groups, err := walk(ctx, c, legacyCore)
		return groups, false, err
	}
	groups, legacyGroups, err := fetchAggregated(ctx, c, "/apis")
	if err != nil {
		return nil, false, err
	}
	if legacyGroups != nil {
		return nil, false, fmt.Errorf("discovery: GET /apis: the server answered /api aggregated but /apis not")
	}
	return append(core, groups...), true, nil
}

// fetchAggregated reads path asking for aggregated discovery. A server
// that answers the legacy document instead gets it back as legacy.
func fetchAggregated(ctx context.Context, c *apiclient.Client, path string) (groups []Group, legacy []byte, err error) {
	body, _, err := c.GetRaw(ctx, path, AcceptAggregated)
	if err != nil {
		return nil, nil, fmt.Errorf("discovery: %w", err)
	}
	return parseAggregated(path, body)
}

// parseAggregated reads an aggregated document; one of another kind comes
// back as legacy.
func parseAggregated(path string, body []byte) (groups []Group, legacy []byte, err error) {
	var l aggregatedList
	if err := json.Unmarshal(body, &l); err != nil {
		return nil, nil, fmt.Errorf("discovery: GET %s: decoding the reply: %w", path, err)
	}
	if l.Kind != "APIGroupDiscoveryList" {
		return nil, body, nil
	}
	for _, item := range l.Items {
		g := Group{Name: item.Metadata.Name}
		for _, v := range item.Versions {
			// A stale version is one an aggregated server failed to
			// report; client-go leaves it out too.
			if v.Freshness == "Stale" {
				continue
			}
			ver := Version{Version: v.Version}
			for _, r := range v.Resources {
				res := Resource{GVR: meta.GVR{Group: g.Name, Version: v.Version, Resource: r.Resource},
					SingularName: r.SingularResource, Namespaced: r.Scope == "Namespaced",
					ShortNames: r.ShortNames, Categories: r.Categories, Verbs: r.Verbs}
				if r.ResponseKind != nil {
					res.Kind = r.ResponseKind.Kind
				}
				for _, s := range r.Subresources {
					res.Subresources = append(res.Subresources, s.Subresource)
				}
				ver.Resources = append(ver.Resources, withSingular(res))
			}
			g.Versions = append(g.Versions, ver)
		}
		if len(g.Versions) > 0 {
			groups = append(groups, g)
		}
	}
	return groups, nil, nil
}

// withSingular fills in a missing singular name as client-go guesses it
// for old servers: the kind in lower case.
func withSingular(r Resource) Resource {
	if r.SingularName == "" {
		r.SingularName = strings.ToLower(r.Kind)
	}
	return r
}
