package meta

// GVR names a resource type: group, version and the plural resource name.
// The core group is "". It is vocabulary shared by every layer: the client
// builds URLs from it, the fake server registers resources under it, and an
// informer is keyed by it.
type GVR struct {
	Group, Version, Resource string
}

// String returns "version/resource" for the core group and
// "group/version/resource" for the others, the form kubectl and the demo's
// --resource flag accept.
func (g GVR) String() string {
	if g.Group == "" {
		return g.Version + "/" + g.Resource
	}
	return g.Group + "/" + g.Version + "/" + g.Resource
}
