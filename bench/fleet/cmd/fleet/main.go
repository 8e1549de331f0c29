// Command fleet runs the fleet benchmark (package bench/fleet) against
// fakeapiserver or kube-apiserver, zerokube's modes from this binary and
// client-go's from bench/clientgo/cmd/cgfleet, and the minimal agents'
// footprint; -report turns the JSON lines it appends into Markdown.
// bench/fleet/run.sh builds everything and runs it.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log"
	"os"
	"os/exec"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/zerokube/zerokube/bench/fleet"
)

type config struct {
	server      string
	agents      []int
	podsPerNode int
	podSize     int
	replicas    int
	shapes      []string
	modes       []string
	cgfleet     string
	churnEvents int
	churnRate   float64
	quiet, tail time.Duration
	idle        time.Duration
	out         string
	fpAgents    []string // name=path
	fpIdle      time.Duration
	fpReps      int
	report      string
	reportOut   string
	skipFleet   bool
}

func parseFlags() config {
	var c config
	var agents, shapes, modes, fp string
	flag.StringVar(&c.server, "server", "fake", "fake (fakeapiserver in a process of its own) or kube (kube-apiserver + etcd from conformance/kube/build.sh)")
	flag.StringVar(&agents, "agents", "100,1000", "per-node fleet sizes, ascending: the cluster has as many nodes")
	flag.IntVar(&c.podsPerNode, "pods-per-node", 10, "pods on each node")
	flag.IntVar(&c.podSize, "pod-size", 0, "workload pod size in bytes (0: the article's pod, about 5.3 KB)")
	flag.IntVar(&c.replicas, "replicas", 10, "replicas of the sharded shape, at each size")
	flag.StringVar(&shapes, "shapes", "pernode,shard", "shapes to run")
	flag.StringVar(&modes, "modes", "zk-snap,zk,zk-stream,cg,cg-list", "modes: zk-snap, zk, zk-stream (this binary), cg, cg-list (-cgfleet)")
	flag.StringVar(&c.cgfleet, "cgfleet", "", "bench/clientgo/cmd/cgfleet binary, for the cg modes")
	flag.IntVar(&c.churnEvents, "churn-events", 500, "updates written in the churn phase")
	flag.Float64Var(&c.churnRate, "churn-rate", 100, "updates per second in the churn phase")
	flag.DurationVar(&c.quiet, "quiet", 10*time.Second, "the quiet window: every watch open, nothing written")
	flag.DurationVar(&c.tail, "tail", 2*time.Second, "a storm's window stays open this long after the last agent synced")
	flag.DurationVar(&c.idle, "idle", 3*time.Second, "the server's idle rate is measured over this long before each mode")
	flag.StringVar(&c.out, "out", "fleet.jsonl", "append results here")
	flag.StringVar(&fp, "footprint", "", "agents whose footprint to measure first, name=binary, comma-separated (e.g. zerokube=/tmp/zk,client-go=/tmp/cg)")
	flag.DurationVar(&c.fpIdle, "footprint-idle", time.Minute, "the footprint's idle window")
	flag.IntVar(&c.fpReps, "footprint-reps", 3, "runs of each agent, alternating")
	flag.BoolVar(&c.skipFleet, "footprint-only", false, "measure the footprint only")
	flag.StringVar(&c.report, "report", "", "only summarize these JSON-lines files (comma-separated)")
	flag.StringVar(&c.reportOut, "report-out", "-", "where -report writes its Markdown")
	flag.Parse()
	for _, w := range words(agents) {
		n, err := strconv.Atoi(w)
		if err != nil || n < 1 {
			log.Fatalf("fleet: -agents %q", w)
		}
		c.agents = append(c.agents, n)
	}
	c.shapes, c.modes, c.fpAgents = words(shapes), words(modes), words(fp)
	return c
}

func words(s string) []string {
	var out []string
	for w := range strings.SplitSeq(s, ",") {
		if w = strings.TrimSpace(w); w != "" {
			out = append(out, w)
		}
	}
	return out
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if ran, err := fleet.RunRole(ctx, os.Args[1:]); ran {
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		return
	}
	log.SetFlags(log.Ltime)
	c := parseFlags()
	var err error
	if c.report != "" {
		err = report(c)
	} else {
		err = drive(ctx, c)
	}
	if err != nil {
		log.Fatal(err)
	}
}

// modes resolves the -modes names.
func modes(c config) ([]fleet.Mode, error) {
	all := fleet.ZKModes()
	cg := func(cc fleet.ChildConfig) (*exec.Cmd, error) {
		if c.cgfleet == "" {
			return nil, errors.New("fleet: the cg modes need -cgfleet")
		}
		cmd := exec.Command(c.cgfleet, cc.Args()...)
		cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL} // never outlive the driver
		return cmd, nil
	}
	all = append(all, fleet.Mode{Name: "cg", Opts: "", Command: cg}, fleet.Mode{Name: "cg-list", Opts: "list", Command: cg})
	var out []fleet.Mode
	for _, name := range c.modes {
		i := slices.IndexFunc(all, func(m fleet.Mode) bool { return m.Name == name })
		if i < 0 {
			return nil, fmt.Errorf("fleet: unknown mode %q", name)
		}
		out = append(out, all[i])
	}
	return out, nil
}

func drive(ctx context.Context, c config) error {
	ms, err := modes(c)
	if err != nil {
		return err
	}
	var srv *fleet.Server
	switch c.server {
	case "fake":
		srv, err = fleet.StartFake(ctx, fleet.FakeCommand)
	case "kube":
		srv, err = fleet.StartKube(ctx)
	default:
		err = fmt.Errorf("fleet: unknown -server %q", c.server)
	}
	if err != nil {
		return err
	}
	defer srv.Close()
	out, err := os.OpenFile(c.out, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	defer out.Close()
	write := func(v any) error {
		b, err := json.Marshal(v)
		if err != nil {
			return err
		}
		_, err = out.Write(append(b, '\n'))
		return err
	}
	var pods []fleet.PodName
	for k, n := range c.agents {
		cl := fleet.Cluster{Nodes: n, PodsPerNode: c.podsPerNode, PodSize: c.podSize}
		t := time.Now()
		more, err := fleet.Load(ctx, srv, cl, len(pods))
		if err != nil {
			return err
		}
		pods = append(pods, more...)
		log.Printf("%s: %d pods on %d nodes loaded in %s", srv.Name, len(pods), n, time.Since(t).Round(time.Second))
		if k == 0 && len(c.fpAgents) > 0 {
			if err := footprint(ctx, c, srv, write); err != nil {
				return err
			}
		}
		if c.skipFleet {
			break
		}
		for _, shape := range c.shapes {
			agents := n
			if shape == fleet.ShapeShard {
				agents = c.replicas
			}
			r := &fleet.Run{Server: srv, Shape: shape, Agents: agents, Pods: pods, Objects: len(pods),
				ChurnEvents: c.churnEvents, ChurnRate: c.churnRate, Quiet: c.quiet, Tail: c.tail, IdleWindow: c.idle,
				Logf: log.Printf}
			for _, m := range ms {
				res, err := r.Mode(ctx, m)
				if err != nil {
					return err
				}
				if err := write(res); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// footprint measures each agent c.fpReps times, alternating, on node 0.
func footprint(ctx context.Context, c config, srv *fleet.Server, write func(any) error) error {
	dir, err := os.MkdirTemp("", "zerokube-footprint-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	flags, err := fleet.AgentFlags(srv.Kubeconfig, dir)
	if err != nil {
		return err
	}
	flags = append(flags, "-node", fleet.NodeName(0))
	for rep := range c.fpReps {
		for _, a := range c.fpAgents {
			name, bin, ok := strings.Cut(a, "=")
			if !ok {
				return fmt.Errorf("fleet: -footprint %q is not name=binary", a)
			}
			f, err := fleet.MeasureFootprint(ctx, bin, flags, c.fpIdle)
			if err != nil {
				return fmt.Errorf("fleet: footprint of %s: %w", name, err)
			}
			if f.Pods != c.podsPerNode {
				return fmt.Errorf("fleet: footprint of %s: it counted %d pods on its node, want %d", name, f.Pods, c.podsPerNode)
			}
			log.Printf("footprint %s #%d: %.1f MB, synced in %.0f ms (%.0f ms CPU), RSS %.1f MiB synced, %.1f MiB idle, idle CPU %.0f ms over %.0f s",
				name, rep, float64(f.Binary)/1e6, 1e3*f.ToSynced, 1e3*f.SyncCPU, float64(f.RSSSynced)/(1<<20), float64(f.RSSIdle)/(1<<20), 1e3*f.IdleCPU, f.Idle)
			if err := write(fleet.FootprintResult{Server: srv.Name, Agent: name, Footprint: f}); err != nil {
				return err
			}
		}
	}
	return nil
}

// report reads JSON-lines files: a line with "mode" is a fleet Result, one
// with "agent" a footprint.
func report(c config) error {
	var rs []fleet.Result
	var fs []fleet.FootprintResult
	for _, name := range words(c.report) {
		f, err := os.Open(name)
		if err != nil {
			return err
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var probe struct {
				Mode  string `json:"mode"`
				Agent string `json:"agent"`
			}
			if err := json.Unmarshal(sc.Bytes(), &probe); err != nil {
				f.Close()
				return fmt.Errorf("fleet: %s: %w", name, err)
			}
			switch {
			case probe.Mode != "":
				var r fleet.Result
				err = json.Unmarshal(sc.Bytes(), &r)
				rs = append(rs, r)
			case probe.Agent != "":
				var r fleet.FootprintResult
				err = json.Unmarshal(sc.Bytes(), &r)
				fs = append(fs, r)
			}
			if err != nil {
				f.Close()
				return fmt.Errorf("fleet: %s: %w", name, err)
			}
		}
		f.Close()
		if err := sc.Err(); err != nil {
			return err
		}
	}
	w := os.Stdout
	if c.reportOut != "-" {
		f, err := os.Create(c.reportOut)
		if err != nil {
			return err
		}
		defer f.Close()
		w = f
	}
	fleet.WriteReport(w, rs, fs)
	return nil
}
