package conformance

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"log/slog"
	"net/http"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// obs is what a scenario observed, line by line. A resourceVersion goes in
// through rv, which marks it; lines turns the marks into ranks ("rv1" is the
// smallest RV this scenario saw), so two servers whose counters differ give
// the same lines when their RVs are ordered alike.
type obs struct{ lines []string }

func (o *obs) add(format string, args ...any) {
	o.lines = append(o.lines, fmt.Sprintf(format, args...))
}

// rv marks a resourceVersion for ranking.
func (o *obs) rv(v any) string { return "⟨rv:" + str(v) + "⟩" }

var rvMark = regexp.MustCompile(`⟨rv:([^⟩]*)⟩`)

// normalised returns the lines with every marked RV replaced by its rank.
func (o *obs) normalised() []string {
	seen := map[uint64]bool{}
	for _, l := range o.lines {
		for _, m := range rvMark.FindAllStringSubmatch(l, -1) {
			if n, err := strconv.ParseUint(m[1], 10, 64); err == nil {
				seen[n] = true
			}
		}
	}
	sorted := make([]uint64, 0, len(seen))
	for n := range seen {
		sorted = append(sorted, n)
	}
	sort.Slice(sorted, func(i, j int) bool { return sorted[i] < sorted[j] })
	rank := map[string]string{}
	for i, n := range sorted {
		rank[strconv.FormatUint(n, 10)] = "rv" + strconv.Itoa(i+1)
	}
	out := make([]string, len(o.lines))
	for i, l := range o.lines {
		out[i] = rvMark.ReplaceAllStringFunc(l, func(m string) string {
			v := rvMark.FindStringSubmatch(m)[1]
			if r, ok := rank[v]; ok {
				return r
			}
			return "rv(" + v + ")"
		})
	}
	return out
}

// at walks a decoded JSON value along a dotted path ("metadata.name",
// "items.0.metadata.name"); nil when any step is missing.
func at(v any, path string) any {
	for _, p := range strings.Split(path, ".") {
		switch x := v.(type) {
		case map[string]any:
			v = x[p]
		case []any:
			i, err := strconv.Atoi(p)
			if err != nil || i < 0 || i >= len(x) {
				return nil
			}
			v = x[i]
		default:
			return nil
		}
	}
	return v
}

// str renders a decoded JSON value compactly: strings bare, absent as "<none>".
func str(v any) string {
	switch x := v.(type) {
	case nil:
		return "<none>"
	case string:
		return x
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	default:
		return string(jsonBytes(x))
	}
}

// keys lists a JSON object's keys in order.
func keys(v any) string {
	m, _ := v.(map[string]any)
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return strings.Join(ks, ",")
}

// status renders the parts of a Status a client acts on.
func status(r reply) string {
	d := at(r.body, "details")
	s := fmt.Sprintf("%d %s/%s", r.code, str(at(r.body, "kind")), str(at(r.body, "reason")))
	if d != nil {
		s += fmt.Sprintf(" details{name=%s group=%s kind=%s", str(at(d, "name")), str(at(d, "group")), str(at(d, "kind")))
		if cs, ok := at(d, "causes").([]any); ok {
			for _, c := range cs {
				s += fmt.Sprintf(" cause{%s %s %q}", str(at(c, "reason")), str(at(c, "field")), str(at(c, "message")))
			}
		}
		if ra := at(d, "retryAfterSeconds"); ra != nil {
			s += " retryAfter=" + str(ra)
		}
		s += "}"
	}
	return s
}

func tlsTransport(caPEM []byte) *http.Transport {
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(caPEM)
	return &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}, ForceAttemptHTTP2: true,
		DisableCompression: true} // scenarios ask for gzip themselves and look at the header
}

func quiet() *slog.Logger { return slog.New(slog.DiscardHandler) }
