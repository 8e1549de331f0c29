package metrics

import (
	"bufio"
	"cmp"
	"io"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
)

// ContentType is the media type of the text exposition format, version
// 0.0.4, that Prometheus scrapes.
const ContentType = "text/plain; version=0.0.4; charset=utf-8"

// ServeHTTP writes the registry in the text exposition format: mount it
// at /metrics.
func (r *Registry) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	w.Header().Set("Content-Type", ContentType)
	if req.Method == http.MethodHead {
		return
	}
	_ = r.WriteText(w) // a failed write is the scraper's broken connection
}

// point is one family's data as read at one instant.
type point struct {
	labels []string
	value  float64
	cum    []uint64 // histogram: cumulative bucket counts, +Inf last
	sum    float64
	n      uint64
}

// WriteText writes every family with at least one series in the text
// exposition format: families sorted by name, series by label values,
// as client_golang orders them. Gauge funcs are called here, with no lock
// of the registry's held.
func (r *Registry) WriteText(w io.Writer) error {
	type read struct {
		d      *Desc
		series []*series
		fns    []func() float64
	}
	r.mu.Lock()
	fams := make([]read, 0, len(r.families))
	for d, f := range r.families {
		rd := read{d: d}
		for _, s := range f.series {
			rd.series = append(rd.series, s)
			rd.fns = append(rd.fns, s.fn)
		}
		fams = append(fams, rd)
	}
	r.mu.Unlock()
	slices.SortFunc(fams, func(a, b read) int { return cmp.Compare(a.d.Name, b.d.Name) })
	bw := bufio.NewWriter(w)
	for _, f := range fams {
		pts := make([]point, len(f.series))
		for i, s := range f.series {
			pts[i] = s.read(f.fns[i])
		}
		slices.SortFunc(pts, func(a, b point) int { return slices.Compare(a.labels, b.labels) })
		writeFamily(bw, f.d, pts)
	}
	return bw.Flush()
}

// read takes the series' current value; fn, when set, gives a gauge's.
func (s *series) read(fn func() float64) point {
	p := point{labels: s.labels}
	switch {
	case s.hist != nil:
		p.cum, p.sum, p.n = s.hist.snapshot()
	case fn != nil:
		p.value = fn()
	default:
		p.value = s.value.load()
	}
	return p
}

func writeFamily(w *bufio.Writer, d *Desc, pts []point) {
	w.WriteString("# HELP " + d.Name + " " + escapeHelp(d.Help) + "\n")
	w.WriteString("# TYPE " + d.Name + " " + d.Kind.String() + "\n")
	for _, p := range pts {
		if d.Kind != Histogram {
			writeSample(w, d.Name, d.Labels, p.labels, "", "", p.value)
			continue
		}
		for i, bound := range d.Buckets {
			writeSample(w, d.Name+"_bucket", d.Labels, p.labels, "le", formatFloat(bound), float64(p.cum[i]))
		}
		writeSample(w, d.Name+"_bucket", d.Labels, p.labels, "le", "+Inf", float64(p.cum[len(d.Buckets)]))
		writeSample(w, d.Name+"_sum", d.Labels, p.labels, "", "", p.sum)
		writeSample(w, d.Name+"_count", d.Labels, p.labels, "", "", float64(p.n))
	}
}

// writeSample writes one line: name{labels...,extra="value"} v.
func writeSample(w *bufio.Writer, name string, names, values []string, extra, extraValue string, v float64) {
	w.WriteString(name)
	if len(names) > 0 || extra != "" {
		w.WriteByte('{')
		for i, n := range names {
			if i > 0 {
				w.WriteByte(',')
			}
			w.WriteString(n + `="` + escapeLabel(values[i]) + `"`)
		}
		if extra != "" {
			if len(names) > 0 {
				w.WriteByte(',')
			}
			w.WriteString(extra + `="` + extraValue + `"`)
		}
		w.WriteByte('}')
	}
	w.WriteString(" " + formatFloat(v) + "\n")
}

// formatFloat writes a value as the format wants it: Go's shortest
// representation, with +Inf, -Inf and NaN spelled out.
func formatFloat(v float64) string {
	switch {
	case math.IsInf(v, 1):
		return "+Inf"
	case math.IsInf(v, -1):
		return "-Inf"
	case math.IsNaN(v):
		return "NaN"
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

var (
	helpEscaper  = strings.NewReplacer(`\`, `\\`, "\n", `\n`)
	labelEscaper = strings.NewReplacer(`\`, `\\`, "\n", `\n`, `"`, `\"`)
)

func escapeHelp(s string) string  { return helpEscaper.Replace(s) }
func escapeLabel(s string) string { return labelEscaper.Replace(s) }
