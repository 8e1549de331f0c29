package main

import (
	"bytes"
	"fmt"
	"html"
	"io/fs"
	"net/http"
	"regexp"
	"strings"
	"time"
	"unicode"

	"github.com/zerokube/zerokube/docs"
)

// renderMarkdown turns one of the docs pages into HTML for the live page's
// /docs/ links, so a classroom without network still reads the section a
// box links to. It knows the subset the docs use: ATX headings (with
// GitHub's anchors), fenced code, pipe tables, "-" and "1." lists,
// paragraphs, the explicit anchors `<a id="…"></a>` that the live page
// links to, and inline code, bold, links and images. Everything else is
// escaped text: the pages are the project's own, but nothing in them can
// inject markup.
func renderMarkdown(src string) string {
	var b strings.Builder
	lines := strings.Split(strings.ReplaceAll(src, "\r\n", "\n"), "\n")
	for i := 0; i < len(lines); {
		line := lines[i]
		switch {
		case strings.TrimSpace(line) == "":
			i++
		case strings.HasPrefix(line, "```"):
			i = renderFence(&b, lines, i)
		case anchorLine.MatchString(line):
			b.WriteString(line + "\n")
			i++
		case headingLine.MatchString(line):
			m := headingLine.FindStringSubmatch(line)
			n := len(m[1])
			b.WriteString("<h" + string(rune('0'+n)) + ` id="` + html.EscapeString(slug(m[2])) + `">` + inline(m[2]) +
				"</h" + string(rune('0'+n)) + ">\n")
			i++
		case strings.HasPrefix(line, "|"):
			i = renderTable(&b, lines, i)
		case listItem.MatchString(line):
			i = renderList(&b, lines, i)
		default:
			i = renderParagraph(&b, lines, i)
		}
	}
	return b.String()
}

var (
	anchorLine  = regexp.MustCompile(`^<a id="[a-z0-9-]+"></a>$`)
	headingLine = regexp.MustCompile(`^(#{1,6})\s+(.*?)\s*#*$`)
	listItem    = regexp.MustCompile(`^\s*(?:[-*]|\d+\.)\s+`)
	inlineRE    = regexp.MustCompile("`[^`]+`|\\*\\*[^*]+\\*\\*|\\*[^*\\s][^*]*\\*|!?\\[[^\\]]*\\]\\([^)\\s]*\\)")
	linkRE      = regexp.MustCompile(`^(!?)\[([^\]]*)\]\(([^)\s]*)\)$`)
)

func renderFence(b *strings.Builder, lines []string, i int) int {
	b.WriteString("<pre><code>")
	for i++; i < len(lines) && !strings.HasPrefix(lines[i], "```"); i++ {
		b.WriteString(html.EscapeString(lines[i]) + "\n")
	}
	b.WriteString("</code></pre>\n")
	return i + 1
}

func renderTable(b *strings.Builder, lines []string, i int) int {
	b.WriteString("<table>\n")
	for row := 0; i < len(lines) && strings.HasPrefix(lines[i], "|"); i, row = i+1, row+1 {
		cells := strings.Split(strings.Trim(strings.TrimSpace(lines[i]), "|"), "|")
		if row == 1 && strings.Trim(strings.Join(cells, ""), "-: ") == "" {
			continue // the separator under the header
		}
		tag := "td"
		if row == 0 {
			tag = "th"
		}
		b.WriteString("<tr>")
		for _, c := range cells {
			b.WriteString("<" + tag + ">" + inline(strings.TrimSpace(c)) + "</" + tag + ">")
		}
		b.WriteString("</tr>\n")
	}
	b.WriteString("</table>\n")
	return i
}

// renderList writes one list; an item's indented lines continue it.
func renderList(b *strings.Builder, lines []string, i int) int {
	tag := "ul"
	if strings.TrimSpace(lines[i])[0] != '-' && strings.TrimSpace(lines[i])[0] != '*' {
		tag = "ol"
	}
	b.WriteString("<" + tag + ">\n")
	var item []string
	flush := func() {
		if item != nil {
			b.WriteString("<li>" + inline(strings.Join(item, " ")) + "</li>\n")
		}
		item = nil
	}
	for ; i < len(lines) && strings.TrimSpace(lines[i]) != ""; i++ {
		if loc := listItem.FindStringIndex(lines[i]); loc != nil {
			flush()
			item = []string{lines[i][loc[1]:]}
			continue
		}
		item = append(item, strings.TrimSpace(lines[i]))
	}
	flush()
	b.WriteString("</" + tag + ">\n")
	return i
}

func renderParagraph(b *strings.Builder, lines []string, i int) int {
	var p []string
	for ; i < len(lines) && strings.TrimSpace(lines[i]) != "" && !strings.HasPrefix(lines[i], "```") &&
		!headingLine.MatchString(lines[i]) && !strings.HasPrefix(lines[i], "|"); i++ {
		p = append(p, strings.TrimSpace(lines[i]))
	}
	b.WriteString("<p>" + inline(strings.Join(p, " ")) + "</p>\n")
	return i
}

// inline escapes s and marks up its code spans, bold, links and images.
func inline(s string) string {
	var b strings.Builder
	last := 0
	for _, loc := range inlineRE.FindAllStringIndex(s, -1) {
		b.WriteString(html.EscapeString(s[last:loc[0]]))
		b.WriteString(inlineToken(s[loc[0]:loc[1]]))
		last = loc[1]
	}
	b.WriteString(html.EscapeString(s[last:]))
	return b.String()
}

func inlineToken(tok string) string {
	switch {
	case strings.HasPrefix(tok, "`"):
		return "<code>" + html.EscapeString(strings.Trim(tok, "`")) + "</code>"
	case strings.HasPrefix(tok, "**"):
		return "<strong>" + html.EscapeString(strings.Trim(tok, "*")) + "</strong>"
	case strings.HasPrefix(tok, "*"):
		return "<em>" + html.EscapeString(strings.Trim(tok, "*")) + "</em>"
	}
	m := linkRE.FindStringSubmatch(tok)
	href, ok := docHref(m[3])
	switch {
	case m[1] == "!" && ok:
		return `<img src="` + html.EscapeString(href) + `" alt="` + html.EscapeString(m[2]) + `">`
	case ok:
		return `<a href="` + html.EscapeString(href) + `">` + inline(m[2]) + "</a>"
	}
	return inline(m[2]) // a file of the repository: not served, the words stay
}

// docHref maps a link of a docs page to where the demo serves it: anchors
// and the web stay as they are, a sibling page or picture is under /docs/;
// anything else (a file of the repository) is not served.
func docHref(target string) (string, bool) {
	switch {
	case strings.HasPrefix(target, "#"), strings.HasPrefix(target, "https://"), strings.HasPrefix(target, "http://"):
		return target, true
	case !strings.Contains(target, "/") && target != "":
		return "/docs/" + target, true
	}
	return "", false
}

// slug is the anchor GitHub gives a heading: lower case, punctuation
// dropped, spaces turned into hyphens; letters of any script stay.
func slug(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsNumber(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// serveDoc serves one of the docs pages (GET /docs/{file}): markdown as an
// HTML page of its own, pictures as they are.
func serveDoc(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("file")
	b, err := fs.ReadFile(docs.Pages, name)
	if err != nil {
		writeUIError(w, http.StatusNotFound, fmt.Sprintf("no docs page %q in this build: the internals page is /docs/internals.md", name))
		return
	}
	if !strings.HasSuffix(name, ".md") {
		http.ServeContent(w, r, name, time.Time{}, bytes.NewReader(b))
		return
	}
	l, htmlLang := langEN, "en"
	if strings.Contains(name, ".zh") {
		l, htmlLang = langZH, "zh-CN"
	}
	back := l.f(msg{en: "← back to the live page", zh: "← 回到实时页面"})
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	fmt.Fprintf(w, "<!doctype html>\n<html lang=%q><head><meta charset=\"utf-8\"><title>%s</title>\n"+
		"<link rel=\"stylesheet\" href=\"/static/style.css\"></head>\n<body class=\"doc-page\"><main>\n"+
		"<p><a href=\"/?lang=%s\">%s</a></p>\n%s</main></body></html>\n",
		htmlLang, html.EscapeString(name), l.code(), back, renderMarkdown(string(b)))
}
