// Command stormprof finds what a restart storm costs kube-apiserver, and
// where (issue #40). It starts kube-apiserver and etcd (as the fleet
// benchmark does), loads -agents nodes of 10 pods, and then either
//
//   - restarts -agents zerokube per-node agents again and again for
//     -seconds (-opts: the fleet's ChildConfig options, "snap" for agents
//     resumed from snapshots, "" for LISTs) while it takes a CPU profile
//     of kube-apiserver (/debug/pprof/profile, on by default) into -out;
//   - or, with -raw, prices each request a resumed agent can make: each
//     of the "|"-separated sequences (of version: a GET of /version,
//     get: the kube-system namespace, list1: a LIST of one pod at least as new as a resourceVersion,
//     list0: the node's pods from the watch cache, watch: a WATCH of
//     them, opened and stopped) is run by -agents fresh clients at once,
//     each on a new connection, over and over for -seconds, -rounds times
//     in turn, and the server's CPU per client is printed. A sequence may
//     end in "/x25519", "/p256" (the only key exchange the client offers),
//     "/default" (Go's, X25519MLKEM768 first, on a plain transport) or
//     "/resume" (each client offers the TLS session its predecessor got),
//     or several joined by "+" ("/x25519+resume"). With -json each
//     sequence's price is also a JSON line on stdout (the raw lines
//     bench/fleet/RESULTS-stormprof.jsonl keeps).
//
// Example: stormprof -agents 100 -seconds 5 -rounds 3 -raw 'watch|get,list1,watch|list0,watch|watch/resume'
//
// Run it under the measurement lock; bench/README.md has what it found.
package main

import (
	"cmp"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"runtime/pprof"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/zerokube/zerokube/apiclient"
	"github.com/zerokube/zerokube/apiclient/kubeconfig"
	"github.com/zerokube/zerokube/bench/fleet"
	"github.com/zerokube/zerokube/meta"
)

func main() {
	agents := flag.Int("agents", 100, "agents (and nodes of 10 pods)")
	opts := flag.String("opts", "snap", "the agents' options (fleet.ChildConfig.Opts)")
	secs := flag.Int("seconds", 30, "how long each measurement lasts")
	out := flag.String("out", "storm.pprof", "kube-apiserver's CPU profile")
	agentsOut := flag.String("agents-out", "", "also a CPU profile of the agents (this process) over the storms, written here")
	raw := flag.String("raw", "", `request sequences to price instead, "|"-separated`)
	rounds := flag.Int("rounds", 1, "turns of the -raw sequences")
	asJSON := flag.Bool("json", false, "with -raw: also print each sequence's price as a JSON line on stdout")
	flag.Parse()
	log.SetFlags(log.Ltime)
	var lines io.Writer
	if *asJSON {
		lines = os.Stdout
	}
	if err := run(context.Background(), *agents, *opts, *secs, *out, *agentsOut, *raw, *rounds, lines); err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context, agents int, opts string, secs int, out, agentsOut, raw string, rounds int, lines io.Writer) error {
	srv, err := fleet.StartKube(ctx)
	if err != nil {
		return err
	}
	defer srv.Close()
	if _, err := fleet.Load(ctx, srv, fleet.Cluster{Nodes: agents, PodsPerNode: 10}, 0); err != nil {
		return err
	}
	cfg, err := kubeconfig.LoadFile(srv.Kubeconfig, "")
	if err != nil {
		return err
	}
	cfg.QPS = -1
	if raw != "" {
		return price(ctx, srv, cfg, agents, strings.Split(raw, "|"), secs, rounds, lines)
	}
	snap, err := os.MkdirTemp("", "stormprof-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(snap)
	z, err := fleet.NewZK(fleet.ChildConfig{Kubeconfig: srv.Kubeconfig, Shape: fleet.ShapePerNode, Agents: agents, Opts: opts, SnapDir: snap})
	if err != nil {
		return err
	}
	var note string // what the last start's agents did, read before its stop forgets their clients
	restart := func() error {
		if _, err := z.Start(ctx); err != nil {
			return err
		}
		note = z.Note()
		return z.Stop()
	}
	if err := restart(); err != nil { // the first snapshots
		return err
	}
	prof := profile(cfg, secs)
	if agentsOut != "" {
		f, err := os.Create(agentsOut)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
	}
	cpu, n, err := repeat(srv, time.Duration(secs-2)*time.Second, restart)
	if agentsOut != "" {
		pprof.StopCPUProfile()
	}
	if err != nil {
		return err
	}
	log.Printf("%d restarts of %d agents (opts %q): apiserver %.3f s CPU, %.3f ms per agent; last: %s",
		n, agents, opts, cpu, 1e3*cpu/float64(n*agents), note)
	b, err := (<-prof)()
	if err != nil {
		return err
	}
	return os.WriteFile(out, b, 0o644)
}

// repeat calls f until d has passed and returns the API server's CPU
// seconds over the calls and how many there were.
func repeat(srv *fleet.Server, d time.Duration, f func() error) (float64, int, error) {
	c0, err := fleet.ProcCPU(srv.APIPID)
	if err != nil {
		return 0, 0, err
	}
	n := 0
	for end := time.Now().Add(d); time.Now().Before(end); n++ {
		if err := f(); err != nil {
			return 0, n, err
		}
	}
	c1, err := fleet.ProcCPU(srv.APIPID)
	return (c1 - c0).Seconds(), n, err
}

// profile asks kube-apiserver for a CPU profile of the next secs seconds;
// the channel yields a function returning it once it is taken.
func profile(cfg *apiclient.Config, secs int) chan func() ([]byte, error) {
	done := make(chan func() ([]byte, error), 1)
	go func() {
		b, err := fetchProfile(cfg, secs)
		done <- func() ([]byte, error) { return b, err }
	}()
	return done
}

func fetchProfile(cfg *apiclient.Config, secs int) ([]byte, error) {
	tc, err := tlsConfig(cfg)
	if err != nil {
		return nil, err
	}
	hc := &http.Client{Transport: &http.Transport{TLSClientConfig: tc}}
	req, err := http.NewRequest("GET", fmt.Sprintf("%s/debug/pprof/profile?seconds=%d", cfg.Host, secs), nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+cfg.BearerToken)
	resp, err := hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("stormprof: profile: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("stormprof: profile: %s", resp.Status)
	}
	return io.ReadAll(resp.Body)
}

// tlsConfig trusts the server's CA, for the clients stormprof makes
// itself.
func tlsConfig(cfg *apiclient.Config) (*tls.Config, error) {
	ca, err := os.ReadFile(cfg.TLS.CAFile)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(ca) {
		return nil, errors.New("stormprof: no CA in " + cfg.TLS.CAFile)
	}
	return &tls.Config{RootCAs: pool}, nil
}

// price runs each sequence in turn, rounds times, and prints the server's
// CPU per client; with lines, also one JSON line (a Price) per sequence.
func price(ctx context.Context, srv *fleet.Server, cfg *apiclient.Config, agents int, seqs []string, secs, rounds int, lines io.Writer) error {
	lm, err := apiclient.List[meta.Raw](ctx, srv.Client, fleet.PodsRef, apiclient.ListOptions{Limit: 1}, func(*meta.Raw) error { return nil })
	if err != nil {
		return err
	}
	p := &pricer{cfg: cfg, rv: lm.ResourceVersion, sessions: map[int]tls.ClientSessionCache{}}
	prices := make([]Price, len(seqs))
	for k, seq := range seqs {
		prices[k] = Price{Seq: seq, Agents: agents, Seconds: secs}
	}
	for range rounds {
		for k, seq := range seqs {
			steps, variant, _ := strings.Cut(seq, "/")
			storm := func() error { return p.storm(ctx, agents, strings.Split(steps, ","), variant) }
			if err := storm(); err != nil { // connections and sessions as in steady state
				return err
			}
			resumed := p.resumed.Load()
			c, n, err := repeat(srv, time.Duration(secs)*time.Second, storm)
			if err != nil {
				return fmt.Errorf("stormprof: %s: %w", seq, err)
			}
			pr := &prices[k]
			pr.APICPU += c
			pr.Clients += n * agents
			pr.Resumed += int(p.resumed.Load() - resumed)
			pr.Rounds = append(pr.Rounds, 1e3*c/float64(n*agents))
		}
	}
	enc := json.NewEncoder(cmp.Or(lines, io.Discard))
	for _, pr := range prices {
		pr.MsPerClient = 1e3 * pr.APICPU / float64(pr.Clients)
		log.Printf("%-24s %6d clients: %.3f ms of kube-apiserver's CPU each (%d resumed a TLS session)", pr.Seq, pr.Clients, pr.MsPerClient, pr.Resumed)
		if err := enc.Encode(pr); err != nil {
			return fmt.Errorf("stormprof: writing %s's price: %w", pr.Seq, err)
		}
	}
	return nil
}

// Price is what one -raw sequence cost kube-apiserver over every round.
type Price struct {
	Seq     string  `json:"seq"`       // the sequence as -raw gave it
	Agents  int     `json:"agents"`    // clients at once in each storm
	Seconds int     `json:"seconds"`   // each round's measuring window
	Clients int     `json:"clients"`   // clients measured over every round
	Resumed int     `json:"resumed"`   // of which connections that resumed a TLS session
	APICPU  float64 `json:"api_cpu_s"` // kube-apiserver's CPU over them (utime + stime)
	// MsPerClient is APICPU over Clients, in ms: the figure published.
	MsPerClient float64 `json:"ms_per_client"`
	// Rounds is each round's ms per client, in order, for the spread.
	Rounds []float64 `json:"rounds_ms_per_client"`
}

// pricer makes the clients of price.
type pricer struct {
	cfg      *apiclient.Config
	rv       string // where list1 and watch start
	mu       sync.Mutex
	sessions map[int]tls.ClientSessionCache // client i's sessions, kept from storm to storm
	resumed  atomic.Int64
}

// storm runs steps on agents new clients at once.
func (p *pricer) storm(ctx context.Context, agents int, steps []string, variant string) error {
	errs := make([]error, agents)
	var wg sync.WaitGroup
	for i := range agents {
		wg.Go(func() { errs[i] = p.one(ctx, i, steps, variant) })
	}
	wg.Wait()
	return errors.Join(errs...)
}

// one is client i: a new connection, then steps.
func (p *pricer) one(ctx context.Context, i int, steps []string, variant string) error {
	c, err := p.client(i, variant)
	if err != nil {
		return err
	}
	defer c.CloseIdleConnections()
	fs := "spec.nodeName=" + fleet.NodeName(i)
	none := func(*meta.Raw) error { return nil }
	var watches []interface{ Stop() }
	defer func() {
		for _, w := range watches {
			w.Stop()
		}
	}()
	for _, s := range steps {
		switch s {
		case "version":
			// What a resumed agent sent to offer its TLS session before
			// the WATCH did (issue #40's second version).
			_, _, err = c.GetRaw(ctx, "/version", "application/json")
		case "get":
			_, err = apiclient.Get[meta.Raw](ctx, c, apiclient.Ref{GVR: meta.GVR{Version: "v1", Resource: "namespaces"}}, "kube-system")
		case "list1":
			_, err = apiclient.List[meta.Raw](ctx, c, fleet.PodsRef, apiclient.ListOptions{Limit: 1, FieldSelector: fs,
				ResourceVersion: p.rv, ResourceVersionMatch: "NotOlderThan"}, none)
		case "list0":
			_, err = apiclient.List[meta.Raw](ctx, c, fleet.PodsRef, apiclient.ListOptions{FieldSelector: fs, ResourceVersion: "0"}, none)
		case "watch":
			var w interface{ Stop() }
			w, err = apiclient.Watch[meta.Raw](ctx, c, fleet.PodsRef, apiclient.WatchOptions{FieldSelector: fs,
				ResourceVersion: p.rv, AllowWatchBookmarks: true, TimeoutSeconds: 600})
			if err == nil {
				watches = append(watches, w)
			}
		default:
			err = fmt.Errorf("unknown step %q", s)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// client is a new client for client i, with variant's TLS.
func (p *pricer) client(i int, variant string) (*apiclient.Client, error) {
	cfg := *p.cfg
	if variant == "" {
		return apiclient.New(&cfg)
	}
	tc, err := tlsConfig(&cfg)
	if err != nil {
		return nil, err
	}
	for _, v := range strings.Split(variant, "+") {
		switch v {
		case "x25519":
			tc.CurvePreferences = []tls.CurveID{tls.X25519}
		case "p256":
			tc.CurvePreferences = []tls.CurveID{tls.CurveP256}
		case "default":
		case "resume":
			p.mu.Lock()
			if p.sessions[i] == nil {
				p.sessions[i] = tls.NewLRUClientSessionCache(4)
			}
			tc.ClientSessionCache = p.sessions[i]
			p.mu.Unlock()
			tc.VerifyConnection = func(cs tls.ConnectionState) error {
				if cs.DidResume {
					p.resumed.Add(1)
				}
				return nil
			}
		default:
			return nil, fmt.Errorf("stormprof: unknown variant %q in %q", v, variant)
		}
	}
	return apiclient.NewWithOptions(&cfg, apiclient.Options{Transport: &http.Transport{TLSClientConfig: tc, ForceAttemptHTTP2: true}})
}
