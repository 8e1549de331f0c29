// Package docs holds zerokube's teaching material (internals.md) and the
// tests that keep the documentation honest: the README's Go example must
// compile against the current API, and every `file.go:function` pointer in
// the docs must name a file and a declaration that exist.
package docs
