// Package apiclient is a hand-written Kubernetes REST client: configuration
// (kubeconfig, in-cluster), LIST pages streamed item by item, WATCH streams
// handed to watchstream, the simple verbs (GET, CREATE, UPDATE, PATCH,
// DELETE), and Status errors.
//
// It sits at the top of the data path
//
//	API server ─HTTP─▶ apiclient ─bytes─▶ watchstream ─events─▶ informer
//
// and knows nothing about informers or caches.
package apiclient
