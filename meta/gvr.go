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

// GroupVersion is the apiVersion objects of g carry: "v1" for the core
// group, "group/version" for the others ("apps/v1").
func (g GVR) GroupVersion() string {
	if g.Group == "" {
		return g.Version
	}
	return g.Group + "/" + g.Version
}

// The values of the resourceVersionMatch parameter of a LIST (and of a
// WATCH with sendInitialEvents). The empty value is a third one: with a
// resourceVersion it means "not older than", except that with a limit too
// kube-apiserver reads a resourceVersion other than "0" as Exact (the API
// concepts' table of LIST semantics; "0" stays "any").
const (
	// MatchNotOlderThan: any state at or after the resourceVersion.
	MatchNotOlderThan = "NotOlderThan"
	// MatchExact: the state at exactly the resourceVersion (a LIST only;
	// 410 once that revision is compacted).
	MatchExact = "Exact"
)
