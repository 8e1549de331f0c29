package fleet

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"time"

	"github.com/zerokube/zerokube/apiclient"
	"github.com/zerokube/zerokube/meta"
)

// Mode is one way of running the agents: a library and its options.
type Mode struct {
	Name string // e.g. "zk-snap", "cg"
	Opts string // ChildConfig.Opts
	// Command is the child's command line for c; the driver sets its
	// standard streams.
	Command func(c ChildConfig) (*exec.Cmd, error)
}

// Run is one fleet against one loaded server; Mode runs each mode of it.
type Run struct {
	Server  *Server
	Shape   string
	Agents  int
	Pods    []PodName // every pod loaded, for the churn's writes
	Objects int       // what the agents must hold in all once synced
	// ChurnEvents updates are written at ChurnRate a second in the churn
	// phase, open loop, spread over every pod; each reaches one agent.
	ChurnEvents int
	ChurnRate   float64
	// Quiet is a window with every watch open and nothing written: what
	// holding the fleet's watches costs.
	Quiet time.Duration
	// Tail keeps a storm's window open this long after the last agent
	// synced: a LIST's watch, or a snapshot's, opens after the sync.
	Tail time.Duration
	// IdleWindow: before each mode's child starts, the server's idle CPU
	// is measured in one-second windows over this long, and the lowest
	// rate is discounted from every phase.
	IdleWindow time.Duration
	Logf       func(format string, args ...any)
}

// Phase is what one phase cost: the API server's CPU (less its idle
// rate over the window), etcd's (likewise), and the agents' process's.
type Phase struct {
	Wall      float64 `json:"wall_s"` // the window
	Took      float64 `json:"took_s"` // the child's command: a storm until every agent synced
	API       float64 `json:"api_cpu_s"`
	Etcd      float64 `json:"etcd_cpu_s,omitempty"`
	Client    float64 `json:"client_cpu_s"`
	APIRSS    int64   `json:"api_rss_b"`      // at the window's end
	APIPeak   int64   `json:"api_peak_rss_b"` // the highest inside the window
	ClientRSS int64   `json:"client_rss_b"`
	Objects   int     `json:"objects,omitempty"`
	Events    int     `json:"events,omitempty"`
	Note      string  `json:"note,omitempty"`
}

// Result is one mode's run.
type Result struct {
	Server   string    `json:"server"`
	Date     time.Time `json:"date"`
	Shape    string    `json:"shape"`
	Mode     string    `json:"mode"`
	Agents   int       `json:"agents"`
	Pods     int       `json:"pods"`
	IdleAPI  float64   `json:"idle_api_cpu_per_s"`
	IdleEtcd float64   `json:"idle_etcd_cpu_per_s,omitempty"`
	Load     string    `json:"load"` // /proc/loadavg at the end
	Initial  Phase     `json:"initial"`
	Quiet    Phase     `json:"quiet"`
	Churn    Phase     `json:"churn"`
	Restart  Phase     `json:"restart"`
}

// sample is the three processes' CPU at one instant.
type sample struct {
	at                time.Time
	api, etcd, client time.Duration
}

func (r *Run) sample(child int) (sample, error) {
	s := sample{at: time.Now()}
	var err error
	if s.api, err = ProcCPU(r.Server.APIPID); err != nil {
		return s, err
	}
	if r.Server.EtcdPID > 0 {
		if s.etcd, err = ProcCPU(r.Server.EtcdPID); err != nil {
			return s, err
		}
	}
	s.client, err = ProcCPU(child)
	return s, err
}

// idleRate measures the server's CPU per second with no agent running,
// in one-second windows, and keeps the lowest: kube-apiserver goes on
// working for a second or two after a child ends (its garbage collection,
// the watches' teardown), and that tail, discounted over a phase, would
// make the phase look cheaper than it is.
func (r *Run) idleRate() (api, etcd float64, err error) {
	api, etcd = math.Inf(1), math.Inf(1)
	a, err := r.sample(os.Getpid())
	for range max(int(r.IdleWindow/time.Second), 1) {
		if err != nil {
			return 0, 0, err
		}
		time.Sleep(time.Second) // the window itself, not a wait for a condition
		b, err := r.sample(os.Getpid())
		if err != nil {
			return 0, 0, err
		}
		wall := b.at.Sub(a.at).Seconds()
		api = min(api, (b.api-a.api).Seconds()/wall)
		etcd = min(etcd, (b.etcd-a.etcd).Seconds()/wall)
		a = b
	}
	return api, etcd, nil
}

// child is a running child process and its line protocol.
type child struct {
	cmd   *exec.Cmd
	in    io.WriteCloser
	out   *bufio.Scanner
	waitc chan error
}

func (c *child) call(line string) (reply, error) {
	if _, err := io.WriteString(c.in, line+"\n"); err != nil {
		return reply{}, fmt.Errorf("fleet: child: %w", err)
	}
	if !c.out.Scan() {
		return reply{}, fmt.Errorf("fleet: the child ended before answering %q: %v", line, c.out.Err())
	}
	var r reply
	if err := json.Unmarshal(c.out.Bytes(), &r); err != nil {
		return r, fmt.Errorf("fleet: child's answer %q: %w", c.out.Text(), err)
	}
	if r.Event == "error" {
		return r, fmt.Errorf("fleet: child: %s", r.Err)
	}
	return r, nil
}

// Mode runs mode m: the idle measurement, the child, the initial storm,
// the quiet window, the churn and the restart storm.
func (r *Run) Mode(ctx context.Context, m Mode) (res Result, err error) {
	res = Result{Server: r.Server.Name, Shape: r.Shape, Mode: m.Name, Agents: r.Agents, Pods: len(r.Pods)}
	if res.IdleAPI, res.IdleEtcd, err = r.idleRate(); err != nil {
		return res, err
	}
	snap, err := os.MkdirTemp("", "zerokube-fleet-snap-")
	if err != nil {
		return res, err
	}
	defer os.RemoveAll(snap)
	cc := ChildConfig{Kubeconfig: r.Server.Kubeconfig, Shape: r.Shape, Agents: r.Agents, Opts: m.Opts, SnapDir: snap}
	cmd, err := m.Command(cc)
	if err != nil {
		return res, err
	}
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return res, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return res, err
	}
	if err := cmd.Start(); err != nil {
		return res, fmt.Errorf("fleet: %s: %w", m.Name, err)
	}
	c := &child{cmd: cmd, in: in, out: bufio.NewScanner(out), waitc: make(chan error, 1)}
	c.out.Buffer(nil, 1<<20)
	go func() { c.waitc <- cmd.Wait() }()
	defer func() {
		in.Close() // the child stops its agents and exits
		select {
		case werr := <-c.waitc:
			if err == nil && werr != nil {
				err = fmt.Errorf("fleet: %s: the child: %w", m.Name, werr)
			}
		case <-time.After(time.Minute):
			_ = cmd.Process.Kill()
			<-c.waitc
		}
	}()
	pid := cmd.Process.Pid
	storm := func(cmd string) (Phase, error) {
		return r.window(pid, res, func() (Phase, error) {
			rep, err := c.call(cmd)
			if err != nil {
				return Phase{}, err
			}
			if rep.Objects != r.Objects {
				return Phase{}, fmt.Errorf("fleet: %s: the agents hold %d objects after %s, want %d", m.Name, rep.Objects, cmd, r.Objects)
			}
			time.Sleep(r.Tail) // part of the window: the watches open after the sync
			return Phase{Took: rep.Seconds, Objects: rep.Objects, Note: rep.Note}, nil
		})
	}
	if res.Initial, err = storm(cmdStart); err != nil {
		return res, err
	}
	r.logf("%s %s n=%d %s: initial storm %s", r.Server.Name, r.Shape, r.Agents, m.Name, res.Initial)
	if res.Quiet, err = r.window(pid, res, func() (Phase, error) {
		time.Sleep(r.Quiet) // the window itself
		return Phase{}, nil
	}); err != nil {
		return res, err
	}
	r.logf("%s %s n=%d %s: quiet %s", r.Server.Name, r.Shape, r.Agents, m.Name, res.Quiet)
	if res.Churn, err = r.window(pid, res, func() (Phase, error) {
		if err := r.churn(ctx); err != nil {
			return Phase{}, err
		}
		rep, err := c.call(cmdUpdates + " " + strconv.Itoa(r.ChurnEvents))
		return Phase{Took: rep.Seconds, Events: r.ChurnEvents}, err
	}); err != nil {
		return res, err
	}
	r.logf("%s %s n=%d %s: churn %s", r.Server.Name, r.Shape, r.Agents, m.Name, res.Churn)
	if res.Restart, err = storm(cmdRestart); err != nil {
		return res, err
	}
	r.logf("%s %s n=%d %s: restart storm %s", r.Server.Name, r.Shape, r.Agents, m.Name, res.Restart)
	res.Date = time.Now().UTC()
	if b, err := os.ReadFile("/proc/loadavg"); err == nil && len(b) > 14 {
		res.Load = string(b[:14])
	}
	return res, nil
}

// window runs f between two samples of the three processes and fills in
// the phase's CPU and memory.
func (r *Run) window(child int, res Result, f func() (Phase, error)) (Phase, error) {
	if err := ResetPeak(r.Server.APIPID); err != nil {
		return Phase{}, err
	}
	a, err := r.sample(child)
	if err != nil {
		return Phase{}, err
	}
	p, err := f()
	if err != nil {
		return p, err
	}
	b, err := r.sample(child)
	if err != nil {
		return p, err
	}
	p.Wall = b.at.Sub(a.at).Seconds()
	p.API = (b.api - a.api).Seconds() - res.IdleAPI*p.Wall
	p.Etcd = (b.etcd - a.etcd).Seconds() - res.IdleEtcd*p.Wall
	p.Client = (b.client - a.client).Seconds()
	m, err := ProcMem(r.Server.APIPID)
	if err != nil {
		return p, err
	}
	p.APIRSS, p.APIPeak = m.RSS, m.Peak
	cm, err := ProcMem(child)
	if err != nil {
		return p, err
	}
	p.ClientRSS = cm.RSS
	return p, nil
}

// String is the phase in a log line.
func (p Phase) String() string {
	return fmt.Sprintf("%.2fs (child %.2fs): apiserver %.3fs CPU, etcd %.3fs, agents %.3fs; apiserver RSS %d MiB (peak %d); %s",
		p.Wall, p.Took, p.API, p.Etcd, p.Client, p.APIRSS>>20, p.APIPeak>>20, p.Note)
}

func (r *Run) logf(format string, args ...any) {
	if r.Logf != nil {
		r.Logf(format, args...)
	}
}

// churnLabel is the label every churn write sets.
const churnLabel = "zk-fleet-churn"

// churn writes r.ChurnEvents merge patches at r.ChurnRate a second, open
// loop (a slow reply does not delay the next write), each to a pod taken in
// a stride over every pod, setting churnLabel to a value it never had.
func (r *Run) churn(ctx context.Context) error {
	seq := time.Now().UnixNano()
	return OpenLoop(r.ChurnEvents, r.ChurnRate, func(k int) error {
		p := r.Pods[(k*7919)%len(r.Pods)]
		patch := fmt.Appendf(nil, `{"metadata":{"labels":{%q:"%d"}}}`, churnLabel, seq+int64(k))
		ref := PodsRef.Namespaced(p.Namespace)
		if _, err := apiclient.Patch[meta.Raw](ctx, r.Server.Client, ref, p.Name, meta.MergePatch, patch); err != nil {
			return fmt.Errorf("fleet: patch %s/%s: %w", p.Namespace, p.Name, err)
		}
		return nil
	})
}

// OpenLoop calls do(k) for k in [0, n) at rate calls a second on 16
// workers, open loop: a slow call does not delay the next one, as load
// from many clients does not wait for one slow reply. It returns the first
// error after every call is done.
func OpenLoop(n int, rate float64, do func(k int) error) error {
	jobs := make(chan int, n)
	errs := make(chan error, 1)
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			for k := range jobs {
				if err := do(k); err != nil {
					select {
					case errs <- err:
					default:
					}
				}
			}
		})
	}
	start := time.Now()
	interval := time.Duration(float64(time.Second) / rate)
	for k := range n {
		if d := time.Until(start.Add(time.Duration(k) * interval)); d > 0 {
			time.Sleep(d) // pacing the writer, not waiting for a condition
		}
		jobs <- k
	}
	close(jobs)
	wg.Wait()
	select {
	case err := <-errs:
		return err
	default:
		return nil
	}
}
