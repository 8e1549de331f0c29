//go:build unix

package docs

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// demoProcess is cmd/demo run as the docs tell a reader to run it.
type demoProcess struct {
	out, err   *lines
	url        string // the embedded server's, from the banner
	kubeconfig string
}

// startDemoProcess builds cmd/demo (once per test) and runs it with args,
// in an English environment, until the test ends; it returns once the
// demo has synced.
func startDemoProcess(t *testing.T, bin string, args ...string) *demoProcess {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "LANG=C.UTF-8", "LC_ALL=", "LC_MESSAGES=")
	d := &demoProcess{out: &lines{}, err: &lines{}}
	cmd.Stdout, cmd.Stderr = d.out, d.err
	require.NoError(t, cmd.Start())
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(agentWait):
			_ = cmd.Process.Kill()
			<-exited
		}
	})
	d.err.await(t, regexp.MustCompile(`demo: (synced|已同步)`))
	d.url = regexp.MustCompile(`(http://[^\s（]+)`).FindStringSubmatch(d.err.String())[1]
	d.kubeconfig = regexp.MustCompile(`demo: kubeconfig(?: 文件)? (\S+)`).FindStringSubmatch(d.err.String())[1]
	return d
}

// buildDemo builds cmd/demo into the test's temporary directory.
func buildDemo(t *testing.T) string {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool on PATH")
	}
	bin := filepath.Join(t.TempDir(), "demo")
	cmd := exec.Command(goTool, "build", "-o", bin, "./cmd/demo")
	cmd.Dir = root
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "go build ./cmd/demo:\n%s", out)
	return bin
}

// shell runs a command line as the docs show it, with env set, and
// fails the test if it fails.
func shell(t *testing.T, line string, env ...string) string {
	t.Helper()
	cmd := exec.Command("sh", "-c", line)
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s:\n%s", line, out)
	return string(out)
}

// sampleRE turns a sample output line of the docs into a pattern of the
// line the demo prints: times, dates, numbers and durations vary.
func sampleRE(line string) *regexp.Regexp {
	p := regexp.QuoteMeta(line)
	p = regexp.MustCompile(`example-[a-z0-9]{5}`).ReplaceAllString(p, `example-NAME`) // generated names
	p = regexp.MustCompile(`\d+`).ReplaceAllString(p, `\d+`)
	p = strings.ReplaceAll(p, `example-NAME`, `example-[a-z0-9]{5}`)
	p = strings.ReplaceAll(p, `\d+µs`, `[\d.]+[µm]?s`) // a handler's time
	return regexp.MustCompile(`(?m)^` + p + `$`)
}

// textBlockAfter returns the first ```text block after marker in md.
func textBlockAfter(t *testing.T, md, marker string) []string {
	t.Helper()
	i := strings.Index(md, marker)
	require.GreaterOrEqual(t, i, 0, "the docs no longer say %q", marker)
	m := regexp.MustCompile("(?s)```text\n(.*?)```").FindStringSubmatch(md[i:])
	require.NotNil(t, m, "no ```text block after %q", marker)
	return strings.Split(strings.TrimRight(m[1], "\n"), "\n")
}

// TestTheStreamingListSampleIsWhatTheDemoPrints runs the command of
// internals.md's streaming-list sample and waits for each of its lines
// (the initial events in any order).
func TestTheStreamingListSampleIsWhatTheDemoPrints(t *testing.T) {
	en := read(t, "docs/internals.md")
	require.Contains(t, en, "`go run ./cmd/demo --trace --streaming-list` shows such a start")
	d := startDemoProcess(t, buildDemo(t), "--trace", "--streaming-list")
	for _, line := range textBlockAfter(t, en, "`go run ./cmd/demo --trace --streaming-list` shows such a start") {
		d.out.await(t, sampleRE(line))
	}
}

// TestTheDocsCommandsPrintWhatTheDocsSay runs the commands of the README
// and of both internals pages, as written, against the demo: the demo's
// flags, the kubectl lines and the curl lines, and checks that the lines
// the docs show appear. Regressions: the trace sample had drifted from what
// the demo prints, and "curl -X POST $URL/fake/drop-watches" was said to
// make a relist, which it does not.
func TestTheDocsCommandsPrintWhatTheDocsSay(t *testing.T) {
	kubectl, err := exec.LookPath("kubectl")
	if err != nil {
		t.Skip("no kubectl on PATH: the docs' kubectl lines need it")
	}
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("no curl on PATH: the docs' curl lines need it")
	}
	bin := buildDemo(t)
	readme, en, zh := read(t, "README.md"), read(t, "docs/internals.md"), read(t, "docs/internals.zh-CN.md")

	pages := []struct {
		name, md, command, sampleAfter string
		args                           []string
	}{
		{"internals.md", en, "`go run ./cmd/demo --trace --churn=false`", "run mine --image=nginx` prints", []string{"--trace", "--churn=false"}},
		{"internals.zh-CN.md", zh, "`go run ./cmd/demo --lang zh --trace --churn=false`", "run mine --image=nginx`，会看到", []string{"--lang", "zh", "--trace", "--churn=false"}},
	}
	for _, p := range pages {
		t.Run(p.name, func(t *testing.T) {
			require.Contains(t, p.md, p.command)
			require.Contains(t, p.md, "`kubectl --kubeconfig … run mine --image=nginx`")
			d := startDemoProcess(t, bin, p.args...)
			k := kubectl + " --kubeconfig " + d.kubeconfig
			shell(t, k+" run mine --image=nginx")
			for _, line := range textBlockAfter(t, p.md, p.sampleAfter) {
				d.out.await(t, sampleRE(line))
			}

			if p.name == "internals.zh-CN.md" {
				// Its graceful deletion sample is the delete below.
				defer func() {
					for _, line := range textBlockAfter(t, p.md, "优雅删除：demo 自动删除一个 Pod") {
						d.out.await(t, sampleRE(line))
					}
				}()
			}

			// The README's kubectl lines, after the run above.
			for _, c := range []struct{ doc, line, prints string }{
				{"`label pod mine tier=web`", "label pod mine tier=web", "Update:  default/mine"},
				{"`delete pod mine`", "delete pod mine", "Delete:  default/mine"},
			} {
				require.Contains(t, readme, c.doc)
				shell(t, k+" "+c.line)
				d.out.await(t, regexp.MustCompile(`(?m) `+regexp.QuoteMeta(c.prints)+`$`))
			}

			// The internals page's way to a relist.
			arm := "curl -X POST \"$URL/fake/fail?verb=watch&code=410&reason=Expired&asEvent=true\""
			drop := "curl -X POST $URL/fake/drop-watches"
			require.Contains(t, p.md, "`"+arm+"`")
			require.Contains(t, p.md, "`"+drop+"`")
			before := len(d.out.String())
			require.Contains(t, shell(t, arm, "URL="+d.url), `"affected"`)
			require.Contains(t, shell(t, drop, "URL="+d.url), `{"affected":1}`)
			relist := regexp.MustCompile(`(?s)relist\s+(relist \(cause: watch-gone\)|全量 list（原因：watch-gone）).*cache-replaced`)
			awaitTrue(t, "a relist after the curl lines; output:\n"+d.out.String(), func() bool {
				return relist.MatchString(d.out.String()[before:])
			})
		})
	}
}
