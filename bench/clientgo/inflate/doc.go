// Package inflate holds the component benchmark that decided apiclient's
// gzip reader: Go's compress/gzip against github.com/klauspost/compress,
// inflating a pod list compressed as kube-apiserver compresses it (gzip
// level 1, k8s.io/apiserver's responsewriters/compression.go). It lives in
// the comparison module so the candidate library enters the root module only
// if it wins.
package inflate
