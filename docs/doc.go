// Package docs holds zerokube's teaching material: internals.md and its
// Chinese twin internals.zh-CN.md (written for the readers of the article
// the project grew from, in the article's order), agents.md and its Chinese
// twin for agent authors, embedded as [Pages] for the demo's live page to
// serve offline, and the tests that keep the documentation honest: the
// README's agent example is built and run against the fake API server and
// must do what the README says (SIGTERM included); the commands the docs
// show (the demo's flags, kubectl and curl lines) are run and must print the
// lines the docs show; the comparison's figures in the README and agents.md
// must equal their one source, bench/RESULTS.md; every example agents.md
// names must exist; and every `file.go:function` pointer in both internals
// pages must name a file and a declaration that exist.
package docs
