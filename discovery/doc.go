// Package discovery finds out what a server serves and resolves the names
// people write for resource types ("deploy", "deployments.apps", "Foo",
// "foos" of a custom resource) to a group, version, resource and scope, as
// kubectl does with client-go's discovery client and REST mapper.
//
// It sits beside the data path, before it starts:
//
//	name ──▶ discovery.Client ──GET /api, /apis──▶ API server
//	            │ Index (kept)
//	            ▼
//	   Resource{GVR, Kind, Namespaced} ──Ref(ns)──▶ informer.New ──▶ apiclient …
//
// It reads aggregated discovery (apidiscovery.k8s.io/v2: every group,
// version and resource in two requests, /api and /apis, asked for in the
// Accept header), and falls back to the legacy walk (/api, /apis, then one
// request per group version) when the server answers plain JSON.
//
// Invariants:
//  1. Resolution follows kubectl's rules and client-go's priorities
//     (Index.Resolve says which); the core group wins over others, and a
//     group's preferred version over its others.
//  2. An Index never changes once made; a Client keeps one and replaces it
//     whole when it reads discovery again.
//  3. A name that fits nothing in a kept Index makes the Client read
//     discovery again before it says NotFound, so a custom resource
//     installed after the first read is found; reads are at least
//     Options.MinRefreshInterval apart, and concurrent misses share one.
//  4. A stale group version (an aggregated API server that did not answer)
//     is left out, and in the legacy walk a group version that fails is
//     left out: one broken API does not hide the others.
//  5. Errors say which name and which server; IsNotFound and IsAmbiguous
//     tell them apart.
package discovery
