package docs

import (
	"bufio"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// requestsSource is the raw output of `stormprof -raw -json` (two runs,
// their command and load in RESULTS-stormprof.env): what each request a
// resumed agent can make costs kube-apiserver.
const requestsSource = "bench/fleet/RESULTS-stormprof.jsonl"

// requestsEnv says what made requestsSource: command, date, load.
const requestsEnv = "bench/fleet/RESULTS-stormprof.env"

// jsonLines decodes every line of the JSON-lines file path into a T.
func jsonLines[T any](t *testing.T, path string) []T {
	t.Helper()
	var out []T
	sc := bufio.NewScanner(strings.NewReader(read(t, path)))
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		var v T
		require.NoError(t, json.Unmarshal(sc.Bytes(), &v), "%s line %d", path, n)
		out = append(out, v)
	}
	require.NoError(t, sc.Err(), path)
	require.NotEmpty(t, out, "%s has no lines", path)
	return out
}

// price is one line of stormprof -raw -json: one sequence over the rounds
// of one run.
type price struct {
	Seq     string  `json:"seq"`
	Clients int     `json:"clients"`
	APICPU  float64 `json:"api_cpu_s"`
}

// prices is every run's price of each sequence, in the order the runs
// came: a run ends where a sequence it already priced comes again.
type prices struct{ runs []map[string]price }

func readPrices(t *testing.T) prices {
	t.Helper()
	var p prices
	for _, l := range jsonLines[price](t, requestsSource) {
		if len(p.runs) == 0 {
			p.runs = append(p.runs, map[string]price{})
		}
		if _, again := p.runs[len(p.runs)-1][l.Seq]; again {
			p.runs = append(p.runs, map[string]price{})
		}
		require.Positive(t, l.Clients, "%s: %s measured no client", requestsSource, l.Seq)
		p.runs[len(p.runs)-1][l.Seq] = l
	}
	return p
}

// ms is seq's kube-apiserver CPU per client in ms: over every run (run
// 0), or in run r (from 1).
func (p prices) ms(t *testing.T, seq string, run int) float64 {
	t.Helper()
	cpu, clients := 0.0, 0
	for r, m := range p.runs {
		if run != 0 && r+1 != run {
			continue
		}
		l, ok := m[seq]
		require.True(t, ok, "%s: run %d did not price %q", requestsSource, r+1, seq)
		cpu, clients = cpu+l.APICPU, clients+l.Clients
	}
	return 1e3 * cpu / float64(clients)
}

// TestTheRequestPricesHaveOneSource: bench/README.md's table of what each
// request of a resumed agent costs kube-apiserver, and the prose that
// quotes it, are the committed stormprof run's figures: over both runs
// (CPU over clients), each run's beside them, and a "+" row the price of
// its sequence less a lone WATCH's in the same run.
func TestTheRequestPricesHaveOneSource(t *testing.T) {
	// The command bench/README.md shows is the one the runs record.
	env := regexp.MustCompile(`(?m)^command='flock /tmp/zerokube-measure.lock stormprof ([^(]+) \(`).FindStringSubmatch(read(t, requestsEnv))
	require.NotNil(t, env, "%s records no stormprof command", requestsEnv)
	mustContain(t, "bench/README.md", "flock /tmp/zerokube-measure.lock /tmp/stormprof "+env[1]+"\n", requestsEnv)

	p := readPrices(t)
	require.Len(t, p.runs, 2, "%s: the README's table has a column for each of two runs", requestsSource)
	// figure writes seq's price, less base's when base is not "", over
	// both runs and in each.
	figure := func(seq, base string) (all string, each string) {
		at := func(run int) float64 {
			v := p.ms(t, seq, run)
			if base != "" {
				v -= p.ms(t, base, run)
			}
			return v
		}
		f := "%.2f"
		if base != "" {
			f = "%+.2f"
		}
		var runs []string
		for r := range p.runs {
			runs = append(runs, fmt.Sprintf(f, at(r+1)))
		}
		return fmt.Sprintf(f, at(0)), strings.Join(runs, ", ")
	}
	const watch = "watch"
	connection := 2*p.ms(t, watch, 0) - p.ms(t, "watch,watch", 0)
	for _, r := range []struct{ what, seq, base, extra string }{
		{"a WATCH (the connection and the watch)", watch, "", ""},
		{"a second WATCH on the same connection", "watch,watch", watch, fmt.Sprintf(" (so the connection: %.2f ms)", connection)},
		{"a GET of the kube-system namespace", "get,watch", watch, ""},
		{"a LIST of one pod at a resourceVersion, NotOlderThan", "list1,watch", watch, ""},
		{"GET, LIST of one, WATCH: a resumed agent before issue #40", "get,list1,watch", "", ""},
		{"LIST of the node's 10 pods at resourceVersion 0, WATCH: a relisting agent (JSON)", "list0,watch", "", ""},
		{"a WATCH over a resumed TLS session", "watch/resume", "", ""},
		{"a WATCH with X25519 only (no ML-KEM)", "watch/x25519", "", ""},
		{"a WATCH with X25519 only, resumed", "watch/x25519+resume", "", ""},
	} {
		all, each := figure(r.seq, r.base)
		mustContain(t, "bench/README.md", fmt.Sprintf("| %s | %s ms%s | %s |", r.what, all, r.extra, each), requestsSource)
	}

	resumed := p.ms(t, "get,list1,watch", 0)
	mustContain(t, "bench/README.md", fmt.Sprintf("history) were %.2f of the %.2f ms", resumed-p.ms(t, watch, 0), resumed), requestsSource)
	mustContain(t, "bench/README.md", fmt.Sprintf("goroutines; about %.2f ms), one request\nthrough the filter chain (%s ms)",
		connection, span("%.2f", p.ms(t, "watch,watch", 0)-p.ms(t, watch, 0), p.ms(t, "get,watch", 0)-p.ms(t, watch, 0))), requestsSource)
	_, each := figure("watch/resume", watch)
	mustContain(t, "bench/README.md", fmt.Sprintf("session against a full handshake's: %+.2f ms over both runs; %s\nin each)",
		p.ms(t, "watch/resume", 0)-p.ms(t, watch, 0), each), requestsSource)
	mustContain(t, "bench/README.md", fmt.Sprintf("offering X25519 alone saves about %.2f ms a connection",
		p.ms(t, watch, 0)-p.ms(t, "watch/x25519", 0)), requestsSource)
}

// resumeSource prices the resume's WATCH with and without the GET of
// /version a resumed agent sent before it in issue #40's second version
// (stormprof -raw, one run; its command and load in the .env beside it).
const resumeSource = "bench/fleet/RESULTS-stormprof-resume.jsonl"

// TestTheResumesPriceHasOneSource: the figures bench/README.md gives for
// dropping that GET are the committed run's.
func TestTheResumesPriceHasOneSource(t *testing.T) {
	ms := map[string]float64{}
	for _, l := range jsonLines[price](t, resumeSource) {
		_, again := ms[l.Seq]
		require.False(t, again, "%s: one run, each sequence once: %s again", resumeSource, l.Seq)
		require.Positive(t, l.Clients, "%s: %s measured no client", resumeSource, l.Seq)
		ms[l.Seq] = 1e3 * l.APICPU / float64(l.Clients)
	}
	now, before := ms["watch/resume"], ms["version,watch/resume"]
	require.Positive(t, now, "%s prices no watch/resume", resumeSource)
	require.Positive(t, before, "%s prices no version,watch/resume", resumeSource)
	mustSay(t, "bench/README.md", fmt.Sprintf("a WATCH over a resumed session costs kube-apiserver %.2f ms a client and the GET of `/version` before it %+.2f ms (%.2f ms): the resume is %.2f× of what `zk-snap-v2`'s was",
		now, before-now, before, now/before), resumeSource)
}
