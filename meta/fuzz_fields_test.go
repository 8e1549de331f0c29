package meta_test

import (
	"errors"
	"testing"

	"github.com/zerokube/zerokube/meta"
)

// FuzzParseFieldSelector parses arbitrary selectors, as a server would from
// a query parameter. It must never panic; errors are SelectorErrors that
// point inside the input; an accepted selector prints a canonical form that
// parses back to the same requirements, so a client can hand a parsed
// selector on to a server without changing what it selects.
func FuzzParseFieldSelector(f *testing.F) {
	for _, s := range []string{
		"", " ", "metadata.name=a", "metadata.namespace==b,metadata.name!=c", `metadata.name=a\,b\=c\\`,
		"spec.nodeName=", "=x", "a", "a=b=c", `a=\x`, `a=\`, ",", "a=b,", "a!==b", " a = b ", "a\x00=b",
		"!  =0", // found by the fuzzer: the field "!" printed as "!=0", which does not parse
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		s, err := meta.ParseFieldSelector(in)
		if err != nil {
			var se *meta.SelectorError
			if !errors.As(err, &se) || se.Pos < 0 || se.Pos > len(in) {
				t.Fatalf("bad error for %q: %v", in, err)
			}
			return
		}
		_ = s.Matches(&meta.ObjectMeta{Name: "a", Namespace: "b"})
		reqs := s.Requirements()
		again, err := meta.ParseFieldSelector(s.String())
		if err != nil {
			t.Fatalf("canonical form %q of %q does not parse: %v", s.String(), in, err)
		}
		got := again.Requirements()
		if len(got) != len(reqs) {
			t.Fatalf("%q: %d requirements, its canonical form %q has %d", in, len(reqs), s.String(), len(got))
		}
		for i := range reqs {
			if got[i] != reqs[i] {
				t.Fatalf("%q: requirement %d is %+v, after printing as %q it is %+v", in, i, reqs[i], s.String(), got[i])
			}
		}
	})
}
