// Package docs holds zerokube's teaching material: internals.md and its
// Chinese twin internals.zh-CN.md (written for the readers of the article
// the project grew from, in the article's order), embedded as [Pages] for
// the demo's live page to serve offline, and the tests that keep the
// documentation honest: the README's Go example must compile against the
// current API, and every `file.go:function` pointer in both internals pages
// must name a file and a declaration that exist.
package docs
