package discovery

import (
	"fmt"
	"slices"
	"strings"

	"github.com/zerokube/zerokube/meta"
)

// Index is one snapshot of what a server serves, and resolves names against
// it. It never changes once made, so it is safe for concurrent use.
//
// Its order is client-go's priority (restmapper.NewDiscoveryRESTMapper): the
// core group first, then the groups in the order the server lists them,
// each group's preferred version before its others. When a name fits
// resources of several groups or versions, the first in that order wins:
// "events" is the core group's, not events.k8s.io's.
type Index struct {
	groups []Group
	all    []*Resource // every resource, in priority order
}

// NewIndex makes an Index of groups, whose versions list the preferred one
// first. The core group ("") is moved to the front.
func NewIndex(groups []Group) *Index {
	x := &Index{groups: slices.Clone(groups)}
	slices.SortStableFunc(x.groups, func(a, b Group) int {
		switch {
		case a.Name == "" && b.Name != "":
			return -1
		case a.Name != "" && b.Name == "":
			return 1
		}
		return 0
	})
	for gi := range x.groups {
		for vi := range x.groups[gi].Versions {
			v := &x.groups[gi].Versions[vi]
			for ri := range v.Resources {
				x.all = append(x.all, &v.Resources[ri])
			}
		}
	}
	return x
}

// Groups returns the groups, the core group first.
func (x *Index) Groups() []Group { return x.groups }

// Resources returns every resource type, in priority order.
func (x *Index) Resources() []Resource {
	out := make([]Resource, len(x.all))
	for i, r := range x.all {
		out[i] = *r
	}
	return out
}

// query is a resource or kind name with an optional group and version; ""
// matches any.
type query struct{ group, version, name string }

// Resolve finds the resource type that name names, by kubectl's rules
// (cli-runtime's Builder.mappingFor over client-go's shortcut expander and
// priority REST mapper):
//
//  1. "resource.version.group" ("deployments.v1.apps"), when name has two
//     dots or more;
//  2. "resource" or "resource.group" ("deploy", "deployments.apps"): the
//     plural, the singular or a short name, in any version; a plural or
//     singular beats another resource's short name, and a short name's
//     group may be abbreviated ("hpa.autoscal");
//  3. the same two forms as a kind ("Deployment", "Deployment.v1.apps").
//
// Plurals and singulars match without regard to case; short names match as
// written, kinds as written or in lower case (apimachinery lowers the
// resource before matching, after the short names were expanded). As an
// extension for flags that took it before, "v1/pods" and
// "apps/v1/deployments" name one group version exactly. A category ("all")
// is not a resource type.
func (x *Index) Resolve(name string) (Resource, error) {
	if name == "" || strings.HasPrefix(name, ".") {
		return Resource{}, &NotFoundError{Name: name}
	}
	if strings.Contains(name, "/") {
		return x.resolveSlashed(name)
	}
	full, partial := parseDotted(name)
	for _, try := range []func(query) (*Resource, error){x.byResource, x.byKind} {
		for _, q := range []*query{full, &partial} {
			if q == nil {
				continue
			}
			if r, err := try(*q); r != nil || err != nil {
				return deref(r), err
			}
		}
	}
	return Resource{}, &NotFoundError{Name: name}
}

func deref(r *Resource) Resource {
	if r == nil {
		return Resource{}
	}
	return *r
}

// parseDotted reads "a.b.c" as resource a, version b, group c (full, only
// with two dots or more) and as resource a of group "b.c" (partial), as
// apimachinery's ParseResourceArg does.
func parseDotted(s string) (full *query, partial query) {
	if strings.Count(s, ".") >= 2 {
		p := strings.SplitN(s, ".", 3)
		full = &query{name: p[0], version: p[1], group: p[2]}
	}
	name, group, _ := strings.Cut(s, ".")
	return full, query{name: name, group: group}
}

// resolveSlashed reads "version/resource" and "group/version/resource".
func (x *Index) resolveSlashed(s string) (Resource, error) {
	p := strings.Split(s, "/")
	var q query
	switch {
	case len(p) == 2:
		q = query{version: p[0], name: p[1]}
	case len(p) == 3 && p[0] != "":
		q = query{group: p[0], version: p[1], name: p[2]}
	default:
		return Resource{}, fmt.Errorf("discovery: %q: want version/resource or group/version/resource", s)
	}
	if q.version == "" || q.name == "" {
		return Resource{}, fmt.Errorf("discovery: %q: want version/resource or group/version/resource", s)
	}
	name := strings.ToLower(q.name)
	r, err := x.first(q, func(r *Resource) bool {
		return r.GVR.Group == q.group && (r.GVR.Resource == name || r.SingularName == name)
	})
	if r == nil && err == nil {
		err = &NotFoundError{Name: s}
	}
	return deref(r), err
}

// byResource matches q as a plural, singular or short name; nil, nil when
// nothing fits.
func (x *Index) byResource(q query) (*Resource, error) {
	q = x.expandShortName(q)
	name := strings.ToLower(q.name)
	return x.first(q, func(r *Resource) bool { return r.GVR.Resource == name || r.SingularName == name })
}

// byKind matches q as a kind, written as the server spells it or in lower
// case.
func (x *Index) byKind(q query) (*Resource, error) {
	return x.first(q, func(r *Resource) bool { return r.Kind == q.name || strings.ToLower(r.Kind) == q.name })
}

// expandShortName turns a short name into its resource (and group), as
// client-go's shortcut expander: not when q names a resource's plural or
// singular in q's group; else the first resource in priority order that
// has the short name in q's group; else, when q has a group, the first
// whose group starts with it.
func (x *Index) expandShortName(q query) query {
	inGroup := func(r *Resource) bool { return q.group == "" || r.GVR.Group == q.group }
	for _, r := range x.all {
		if inGroup(r) && (r.GVR.Resource == q.name || r.SingularName == q.name) {
			return q
		}
	}
	for _, r := range x.all {
		if inGroup(r) && slices.Contains(r.ShortNames, q.name) {
			q.group, q.name = r.GVR.Group, r.GVR.Resource
			return q
		}
	}
	if q.group == "" {
		return q
	}
	for _, r := range x.all {
		if strings.HasPrefix(r.GVR.Group, q.group) && slices.Contains(r.ShortNames, q.name) {
			q.group, q.name = r.GVR.Group, r.GVR.Resource
			return q
		}
	}
	return q
}

// first returns the first resource in priority order that is in q's group
// and version and that match accepts; an AmbiguousError when another of the
// same group version is accepted too; nil, nil when none is.
func (x *Index) first(q query, match func(*Resource) bool) (*Resource, error) {
	var found *Resource
	var also []meta.GVR
	for _, r := range x.all {
		if (q.group != "" && r.GVR.Group != q.group) || (q.version != "" && r.GVR.Version != q.version) || !match(r) {
			continue
		}
		switch {
		case found == nil:
			found = r
		case r.GVR.Group == found.GVR.Group && r.GVR.Version == found.GVR.Version:
			also = append(also, r.GVR)
		}
	}
	if len(also) > 0 {
		return nil, &AmbiguousError{Name: q.name, Matches: append([]meta.GVR{found.GVR}, also...)}
	}
	return found, nil
}

// Shadowed lists the other resources (group and resource, in priority
// order) that also have the short name that made name resolve to r: the
// ones kubectl warns "could also match lower priority resource" about.
// Empty when name is not one of r's short names.
func (x *Index) Shadowed(name string, r Resource) []string {
	_, q := parseDotted(name)
	if !slices.Contains(r.ShortNames, q.name) {
		return nil
	}
	var out []string
	for _, o := range x.all {
		gr := o.GVR.Resource
		if o.GVR.Group != "" {
			gr += "." + o.GVR.Group
		}
		if (o.GVR.Group == r.GVR.Group && o.GVR.Resource == r.GVR.Resource) || slices.Contains(out, gr) {
			continue
		}
		if (q.group == "" || o.GVR.Group == q.group) && slices.Contains(o.ShortNames, q.name) {
			out = append(out, gr)
		}
	}
	return out
}
