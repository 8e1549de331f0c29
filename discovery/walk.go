package discovery

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/go-json-experiment/json"

	"github.com/zerokube/zerokube/apiclient"
	"github.com/zerokube/zerokube/meta"
)

// The legacy walk: /api lists the core versions, /apis the groups with
// their versions and the preferred one, and each group version's own
// document (/api/v1, /apis/apps/v1) lists its resources. It costs one
// request per group version, which is why aggregated discovery exists.

type apiVersions struct {
	Versions []string `json:"versions"`
}

type groupList struct {
	Groups []struct {
		Name     string `json:"name"`
		Versions []struct {
			Version string `json:"version"`
		} `json:"versions"`
		PreferredVersion struct {
			Version string `json:"version"`
		} `json:"preferredVersion"`
	} `json:"groups"`
}

type resourceList struct {
	Resources []struct {
		Name         string   `json:"name"`
		SingularName string   `json:"singularName"`
		Namespaced   bool     `json:"namespaced"`
		Kind         string   `json:"kind"`
		Verbs        []string `json:"verbs"`
		ShortNames   []string `json:"shortNames"`
		Categories   []string `json:"categories"`
	} `json:"resources"`
}

// walk reads the legacy documents, starting from /api's (already read). A
// group version whose document fails is left out, as client-go leaves out a
// failed aggregated API; only when every one fails does walk fail.
func walk(ctx context.Context, c *apiclient.Client, apiDoc []byte) ([]Group, error) {
	var core apiVersions
	if err := json.Unmarshal(apiDoc, &core); err != nil {
		return nil, fmt.Errorf("discovery: GET /api: decoding the reply: %w", err)
	}
	type gv struct{ group, version string }
	var order []Group
	var want []gv
	for _, v := range core.Versions {
		want = append(want, gv{"", v})
	}
	order = append(order, Group{})
	body, _, err := c.GetRaw(ctx, "/apis", "application/json")
	if err != nil {
		return nil, fmt.Errorf("discovery: %w", err)
	}
	var gl groupList
	if err := json.Unmarshal(body, &gl); err != nil {
		return nil, fmt.Errorf("discovery: GET /apis: decoding the reply: %w", err)
	}
	for _, g := range gl.Groups {
		order = append(order, Group{Name: g.Name})
		pref := g.PreferredVersion.Version
		want = append(want, gv{g.Name, pref})
		for _, v := range g.Versions {
			if v.Version != pref {
				want = append(want, gv{g.Name, v.Version})
			}
		}
	}
	var errs []error
	for _, w := range want {
		v, err := fetchVersion(ctx, c, w.group, w.version)
		if err != nil {
			if ctx.Err() != nil {
				return nil, err
			}
			errs = append(errs, err)
			continue
		}
		for i := range order {
			if order[i].Name == w.group {
				order[i].Versions = append(order[i].Versions, v)
			}
		}
	}
	if len(errs) == len(want) && len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	groups := order[:0]
	for _, g := range order {
		if len(g.Versions) > 0 {
			groups = append(groups, g)
		}
	}
	return groups, nil
}

// fetchVersion reads one group version's resources. Subresources
// ("pods/status") are listed by name after their resource's.
func fetchVersion(ctx context.Context, c *apiclient.Client, group, version string) (Version, error) {
	path := "/api/" + version
	if group != "" {
		path = "/apis/" + group + "/" + version
	}
	body, _, err := c.GetRaw(ctx, path, "application/json")
	if err != nil {
		return Version{}, fmt.Errorf("discovery: %w", err)
	}
	return parseVersion(path, group, version, body)
}

// parseVersion reads one group version's legacy document.
func parseVersion(path, group, version string, body []byte) (Version, error) {
	var l resourceList
	if err := json.Unmarshal(body, &l); err != nil {
		return Version{}, fmt.Errorf("discovery: GET %s: decoding the reply: %w", path, err)
	}
	v := Version{Version: version}
	for _, r := range l.Resources {
		if parent, sub, ok := strings.Cut(r.Name, "/"); ok {
			for i := range v.Resources {
				if v.Resources[i].GVR.Resource == parent {
					v.Resources[i].Subresources = append(v.Resources[i].Subresources, sub)
				}
			}
			continue
		}
		v.Resources = append(v.Resources, withSingular(Resource{
			GVR:  meta.GVR{Group: group, Version: version, Resource: r.Name},
			Kind: r.Kind, SingularName: r.SingularName, Namespaced: r.Namespaced,
			ShortNames: r.ShortNames, Categories: r.Categories, Verbs: r.Verbs}))
	}
	return v, nil
}
