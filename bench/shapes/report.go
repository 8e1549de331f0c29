package shapes

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
)

// ReadSamples reads the JSON lines a run appended.
func ReadSamples(path string) ([]Sample, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("shapes: %w", err)
	}
	defer f.Close()
	var out []Sample
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		if len(strings.TrimSpace(sc.Text())) == 0 {
			continue
		}
		var s Sample
		if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
			return nil, fmt.Errorf("shapes: %s line %d: %w", path, n, err)
		}
		out = append(out, s)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("shapes: %s: %w", path, err)
	}
	return out, nil
}

// Spread is a median with the smallest and largest value it was taken of.
type Spread struct{ Median, Min, Max float64 }

func spreadOf(v []float64) Spread {
	if len(v) == 0 {
		return Spread{}
	}
	v = slices.Clone(v)
	slices.Sort(v)
	m := v[len(v)/2]
	if len(v)%2 == 0 {
		m = (v[len(v)/2-1] + v[len(v)/2]) / 2
	}
	return Spread{Median: m, Min: v[0], Max: v[len(v)-1]}
}

// Cost is a shape's CPU per object over its samples, in microseconds.
type Cost struct {
	Samples                 int
	APIServer, Etcd, Client Spread
	// PeakRSS: MiB the API server's RSS rose over the sample (not per object).
	PeakRSS           Spread
	RequestsPerSample int
}

// Costs summarizes samples by shape.
func Costs(samples []Sample) map[string]Cost {
	type acc struct {
		api, etcd, client, rss []float64
		reqs, n                int
	}
	by := map[string]*acc{}
	for _, s := range samples {
		if s.Objects == 0 {
			continue
		}
		a := by[s.Shape]
		if a == nil {
			a = &acc{}
			by[s.Shape] = a
		}
		per := func(v float64) float64 { return v * 1e6 / float64(s.Objects) }
		a.api, a.etcd, a.client = append(a.api, per(s.APIServer)), append(a.etcd, per(s.Etcd)), append(a.client, per(s.Client))
		a.rss = append(a.rss, s.PeakRSS)
		a.reqs, a.n = s.Requests, a.n+1
	}
	out := map[string]Cost{}
	for k, a := range by {
		out[k] = Cost{Samples: a.n, APIServer: spreadOf(a.api), Etcd: spreadOf(a.etcd), Client: spreadOf(a.client), PeakRSS: spreadOf(a.rss), RequestsPerSample: a.reqs}
	}
	return out
}

// whole is v rounded to an integer, without the sign of a negative zero
// (an idle rate discounted from an idle server leaves -0.3).
func whole(v float64) string {
	r := math.Round(v)
	if r == 0 {
		r = 0 // -0 too
	}
	return strconv.FormatFloat(r, 'f', 0, 64)
}

// Report is the Markdown of samples: for each of the API server, etcd
// and the client, a table of µs of CPU per object, one row per object,
// verb and scope, one column per wire and encoding; each cell the median
// and, in parentheses, the range of the rounds.
func Report(samples []Sample) string {
	costs := Costs(samples)
	var b strings.Builder
	rounds, loads := map[int]bool{}, []float64{}
	for _, s := range samples {
		if !rounds[s.Round] {
			rounds[s.Round] = true
		}
		loads = append(loads, s.Load)
	}
	l := spreadOf(loads)
	fmt.Fprintf(&b, "%d samples over %d rounds; load average (1 min) %.1f–%.1f, median %.1f.\n", len(samples), len(rounds), l.Min, l.Max, l.Median)
	for _, part := range []struct {
		title string
		get   func(Cost) Spread
	}{
		{"API server (kube-apiserver) CPU, µs per object", func(c Cost) Spread { return c.APIServer }},
		{"etcd CPU, µs per object", func(c Cost) Spread { return c.Etcd }},
		{"client CPU (decoding as the informer does), µs per object", func(c Cost) Spread { return c.Client }},
		{"API server peak RSS, MiB above its RSS before the shape's requests (not per object)", func(c Cost) Spread { return c.PeakRSS }},
	} {
		fmt.Fprintf(&b, "\n%s:\n\n", part.title)
		b.WriteString("| objects | request | scope | protobuf | protobuf + gzip | JSON | JSON + gzip |\n|---|---|---|---|---|---|---|\n")
		for _, md := range []bool{false, true} {
			for _, v := range []Verb{ListAtZero, ListConsistent, Stream} {
				for _, pn := range []bool{false, true} {
					s := Shape{Metadata: md, Verb: v, PerNode: pn}
					obj, scope := "whole", "cluster-wide"
					if md {
						obj = "metadata"
					}
					if pn {
						scope = "per node"
					}
					fmt.Fprintf(&b, "| %s | %s | %s |", obj, v, scope)
					for _, js := range []bool{false, true} {
						for _, gz := range []bool{false, true} {
							s.JSON, s.Gzip = js, gz
							c, ok := costs[s.String()]
							if !ok {
								b.WriteString(" — |")
								continue
							}
							sp := part.get(c)
							fmt.Fprintf(&b, " %s (%s–%s) |", whole(sp.Median), whole(sp.Min), whole(sp.Max))
						}
					}
					b.WriteString("\n")
				}
			}
		}
	}
	return b.String()
}
