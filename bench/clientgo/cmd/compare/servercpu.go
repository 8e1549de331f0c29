package main

import (
	"math"
	"time"

	"github.com/zerokube/zerokube/bench/fleet"
)

// procCPU is the user plus system CPU time the process pid has used so
// far, all its threads included (fleet.ProcCPU: /proc/PID/stat). The
// server's counters are read from outside it, so the figure is the same
// for every client and needs nothing from the server but its pid.
func procCPU(pid int) (time.Duration, error) { return fleet.ProcCPU(pid) }

// serverSample is the server's processes' CPU at one instant.
type serverSample struct {
	at        time.Time
	api, etcd time.Duration // etcd 0 for fakeapiserver, which has none
}

// sample reads the server's counters now.
func sample(s *server) (serverSample, error) {
	out := serverSample{at: time.Now()}
	var err error
	if out.api, err = procCPU(s.APIPID); err != nil {
		return out, err
	}
	if s.EtcdPID > 0 {
		out.etcd, err = procCPU(s.EtcdPID)
	}
	return out, err
}

// serverCPU is what the server spent between two samples over what it
// spends idle in as long a window: the share one child's phase cost it.
type serverCPU struct {
	API  float64 `json:"api_cpu_s"`
	Etcd float64 `json:"etcd_cpu_s,omitempty"`
	Wall float64 `json:"wall_s"` // the window: API + idle API rate × Wall is what the counters moved
}

// between is b's counters less a's, less the idle rates over the window.
func between(a, b serverSample, idle idleRate) serverCPU {
	wall := b.at.Sub(a.at).Seconds()
	return serverCPU{
		API:  (b.api - a.api).Seconds() - idle.API*wall,
		Etcd: (b.etcd - a.etcd).Seconds() - idle.Etcd*wall,
		Wall: wall,
	}
}

// idleRate is the server's CPU per second of wall time with no client
// doing anything: kube-apiserver's own loops (leases, its controllers,
// etcd's compaction and health checks) and what is left of the previous
// child's garbage.
type idleRate struct {
	API  float64 `json:"api_cpu_per_s"`
	Etcd float64 `json:"etcd_cpu_per_s,omitempty"`
}

// measureIdle samples the server over window, with no child running, in
// windows of a second and keeps the lowest rate: kube-apiserver goes on
// working for a second or two after a child ends (its garbage collection,
// the watch's teardown), and that tail, discounted over a long sync, would
// make a child's share look smaller than it is, even below zero.
func measureIdle(s *server, window time.Duration) (idleRate, error) {
	if window <= 0 {
		return idleRate{}, nil
	}
	best := idleRate{API: math.Inf(1), Etcd: math.Inf(1)}
	a, err := sample(s)
	for range max(int(window/time.Second), 1) {
		if err != nil {
			return idleRate{}, err
		}
		time.Sleep(time.Second) // the window itself, not a wait for a condition
		b, err := sample(s)
		if err != nil {
			return idleRate{}, err
		}
		wall := b.at.Sub(a.at).Seconds()
		best.API = min(best.API, (b.api-a.api).Seconds()/wall)
		best.Etcd = min(best.Etcd, (b.etcd-a.etcd).Seconds()/wall)
		a = b
	}
	return best, nil
}
