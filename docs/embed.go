package docs

import "embed"

// Pages holds the teaching pages (internals.md, its Chinese twin
// internals.zh-CN.md, and the pictures they show), so that a
// program can serve them with no network: the demo's live page links each
// of its boxes to a section of them.
//
//go:embed *.md *.png
var Pages embed.FS
