// Package docs holds zerokube's teaching material (internals.md), embedded
// as [Pages] for the demo's live page to serve offline, and the tests that
// keep the documentation honest: the README's Go example must compile
// against the current API, and every `file.go:function` pointer in the docs
// must name a file and a declaration that exist.
package docs
