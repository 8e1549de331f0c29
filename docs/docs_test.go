package docs

import (
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// root is the module root, seen from this package's directory.
const root = ".."

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, path))
	require.NoError(t, err)
	return string(b)
}

func TestReadmeStartsWithTheTwoCommands(t *testing.T) {
	readme := read(t, "README.md")
	re := regexp.MustCompile("^# zerokube\n\n```sh\ngo run ./cmd/demo( [^\n]*)?\ngo test ./...( [^\n]*)?\n```\n")
	require.Regexp(t, re, readme)
}

// The README is user documentation a newcomer reads through: short, and
// without lines that date it (a date goes stale the day after; the demo's
// sample output shows its format, not a day). 325 lines: 320 until the
// comparison named the command and time that reproduce each figure.
func TestReadmeIsShortAndUndated(t *testing.T) {
	readme := read(t, "README.md")
	require.LessOrEqual(t, strings.Count(readme, "\n"), 325, "README.md is longer than 325 lines")
	for i, line := range strings.Split(readme, "\n") {
		require.NotRegexp(t, `\b(19|20)\d\d-\d\d-\d\d\b`, line, "README.md:%d carries a date", i+1)
	}
}

// An agent author finds the write pattern for slim types where the README
// sends them, backed by an example that runs.
func TestAgentsPageShowsTheWritePatternForSlimTypes(t *testing.T) {
	agents := read(t, "docs/agents.md")
	for _, want := range []string{"Ref()", "apiclient.UpdateMetadata", "meta.MergePatch", "resourceVersion", "RetryOnConflict", "ExampleInformer_Ref"} {
		require.Contains(t, agents, want)
	}
	require.Contains(t, read(t, "informer/example_write_test.go"), "func ExampleInformer_Ref()")
}

// goBlock returns the first ```go block of a markdown text.
func goBlock(t *testing.T, md string) string {
	t.Helper()
	m := regexp.MustCompile("(?s)```go\n(.*?)```").FindStringSubmatch(md)
	require.NotNil(t, m, "no ```go block")
	return m[1]
}

// pointerRE matches `dir/file.go` and `dir/file.go:Name` in the docs (a
// bare `file.go` is prose, not a pointer).
var pointerRE = regexp.MustCompile("`([a-z][a-z0-9_]*/[a-z0-9_/]*\\.go)(?::([A-Za-z_][A-Za-z0-9_]*))?`")

// teachingPages are the pages whose code pointers and links are checked:
// the English internals page and its Chinese twin carry the same pointers.
var teachingPages = []string{"docs/internals.md", "docs/internals.zh-CN.md"}

func TestEveryCodePointerExists(t *testing.T) {
	for _, doc := range teachingPages {
		t.Run(doc, func(t *testing.T) {
			matches := pointerRE.FindAllStringSubmatch(read(t, doc), -1)
			require.NotEmpty(t, matches)
			for _, m := range matches {
				file, name := m[1], m[2]
				src, err := os.ReadFile(filepath.Join(root, file))
				require.NoError(t, err, "%s points at %s", doc, m[0])
				if name == "" {
					continue
				}
				decl := regexp.MustCompile(`(?m)^(func (\([^)]*\) )?` + name + `[\[(]|type ` + name + `[\[ ])`)
				require.True(t, decl.Match(src), "%s: %s declares no %s", doc, file, name)
			}
		})
	}
}

// TestTheChinesePageCarriesEveryPointerOfTheEnglishOne: the Chinese
// internals page teaches the same code, so a stage that gains a pointer in
// docs/internals.md gains it in docs/internals.zh-CN.md too (in the section
// that explains that stage; a sentence in English is better than none).
func TestTheChinesePageCarriesEveryPointerOfTheEnglishOne(t *testing.T) {
	zh := map[string]bool{}
	for _, m := range pointerRE.FindAllString(read(t, "docs/internals.zh-CN.md"), -1) {
		zh[m] = true
	}
	for _, m := range pointerRE.FindAllString(read(t, "docs/internals.md"), -1) {
		require.True(t, zh[m], "docs/internals.md points at %s, docs/internals.zh-CN.md does not", m)
	}
}

// TestRelativeLinksExist checks the docs' links to files of the repo.
func TestRelativeLinksExist(t *testing.T) {
	linkRE := regexp.MustCompile(`\]\(([^)#\s]+)\)`)
	codeRE := regexp.MustCompile("(?s)```.*?```")
	for _, doc := range append([]string{"README.md", "docs/agents.md", "docs/agents.zh-CN.md", "bench/HISTORY.md"}, teachingPages...) {
		prose := codeRE.ReplaceAllString(read(t, doc), "")
		for _, m := range linkRE.FindAllStringSubmatch(prose, -1) {
			target := m[1]
			if strings.Contains(target, "://") {
				continue
			}
			if target == "bench/RESULTS.md" {
				continue // written by bench/run.sh; may not exist yet
			}
			_, err := os.Stat(filepath.Join(root, filepath.Dir(doc), target))
			require.NoError(t, err, "%s links to %s", doc, target)
		}
	}
}

// TestTheAgentPagesExamplesExist: every runnable example docs/agents.md
// and its Chinese twin name for a step of the agent author's path exists,
// in the file they name, and both pages name the same ones.
func TestTheAgentPagesExamplesExist(t *testing.T) {
	exampleRE := regexp.MustCompile("`((?:[a-z]+/)+[a-z_]+_test\\.go)` (?:里的 )?`(Example[A-Za-z_]*)`|`(Example[A-Za-z_]*)`")
	fileRE := regexp.MustCompile("`((?:[a-z]+/)+[a-z_]+_test\\.go)`")
	found := map[string][]string{}
	for _, page := range []string{"docs/agents.md", "docs/agents.zh-CN.md"} {
		md := read(t, page)
		i := strings.Index(md, "\n## ") // the path is the first section
		require.GreaterOrEqual(t, i, 0)
		section := md[i:]
		if j := strings.Index(section[1:], "\n## "); j >= 0 {
			section = section[:j+1]
		}
		for _, m := range exampleRE.FindAllStringSubmatch(section, -1) {
			name := m[2] + m[3]
			found[page] = append(found[page], name)
		}
		require.GreaterOrEqual(t, len(found[page]), 6, "%s names fewer examples than steps", page)
		for _, f := range fileRE.FindAllStringSubmatch(section, -1) {
			_, err := os.Stat(filepath.Join(root, f[1]))
			require.NoError(t, err, "%s names %s", page, f[1])
		}
	}
	require.ElementsMatch(t, found["docs/agents.md"], found["docs/agents.zh-CN.md"], "the two pages name other examples")
	var all strings.Builder
	for _, dir := range []string{"informer", "fakeapiserver"} {
		files, err := filepath.Glob(filepath.Join(root, dir, "*_test.go"))
		require.NoError(t, err)
		for _, f := range files {
			b, err := os.ReadFile(f)
			require.NoError(t, err)
			all.Write(b)
		}
	}
	for _, name := range found["docs/agents.md"] {
		require.Regexp(t, `(?m)^func `+name+`\(\) \{`, all.String(), "docs/agents.md names %s, which does not exist", name)
	}
}

// section is md's section under heading (a "## " line), up to the next.
func section(t *testing.T, md, heading string) string {
	t.Helper()
	i := strings.Index(md, "\n"+heading+"\n")
	require.GreaterOrEqual(t, i, 0, "no section %q", heading)
	s := md[i+1:]
	if j := strings.Index(s[1:], "\n## "); j >= 0 {
		s = s[:j+1]
	}
	return s
}

// TestTheChineseChecklistSaysWhatTheEnglishOneSays: docs/agents.zh-CN.md's
// production checklist has the English one's steps, and each step names
// the same code (what is in backquotes) and the same figures, so a step
// that changes in one language (the warm restart's TLS session, say) fails
// here until the other follows.
func TestTheChineseChecklistSaysWhatTheEnglishOneSays(t *testing.T) {
	stepRE := regexp.MustCompile(`(?m)^\d+\. `)
	codeRE := regexp.MustCompile("`[^`\n]+`")
	figureRE := regexp.MustCompile(`\b\d[\d,.]*\d\b|\b\d\b`)
	said := func(re *regexp.Regexp, s string) []string {
		set := map[string]bool{}
		for _, m := range re.FindAllString(s, -1) {
			set[m] = true
		}
		return slices.Sorted(maps.Keys(set))
	}
	steps := func(doc, heading string) []string {
		s := section(t, read(t, doc), heading)
		at := stepRE.FindAllStringIndex(s, -1)
		require.NotEmpty(t, at, "%s: no numbered steps under %q", doc, heading)
		var out []string
		for i, a := range at {
			end := len(s)
			if i+1 < len(at) {
				end = at[i+1][0]
			}
			out = append(out, s[a[0]:end])
		}
		return out
	}
	en, zh := steps("docs/agents.md", "## Production checklist"), steps("docs/agents.zh-CN.md", "## 上线清单")
	require.Len(t, zh, len(en), "the two checklists have different numbers of steps")
	for i := range en {
		require.Equal(t, said(codeRE, en[i]), said(codeRE, zh[i]), "step %d names other code in the two languages", i+1)
		require.Equal(t, said(figureRE, en[i]), said(figureRE, zh[i]), "step %d gives other figures in the two languages", i+1)
	}
}
