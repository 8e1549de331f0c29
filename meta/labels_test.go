package meta_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/meta"
)

func TestParseLabelSelectorMatches(t *testing.T) {
	labels := map[string]string{"app": "web", "tier": "front", "n": "5", "empty": ""}
	for _, tc := range []struct {
		sel   string
		match bool
		canon string
	}{
		{"", true, ""},
		{"app=web", true, "app=web"},
		{"app==web", true, "app=web"},
		{"app = web", true, "app=web"},
		{"app!=web", false, "app!=web"},
		{"missing!=x", true, "missing!=x"},
		{"app in (web, db)", true, "app in (db,web)"},
		{"app notin (web)", false, "app notin (web)"},
		{"missing notin (web)", true, "missing notin (web)"},
		{"app", true, "app"},
		{"!app", false, "!app"},
		{"!missing", true, "!missing"},
		{"n>3", true, "n>3"},
		{"n<3", false, "n<3"},
		{"app>3", false, "app>3"},
		{"empty=", true, "empty="},
		{"empty in (,x)", true, "empty in (,x)"},
		{"tier=front,app=web", true, "app=web,tier=front"},
		{"tier=front,app=db", false, "app=db,tier=front"},
		{"example.com/role=x", false, "example.com/role=x"},
		{"app=in", false, "app=in"},
	} {
		t.Run(tc.sel, func(t *testing.T) {
			s, err := meta.ParseLabelSelector(tc.sel)
			require.NoError(t, err)
			require.Equal(t, tc.match, s.Matches(labels))
			require.Equal(t, tc.canon, s.String())
			require.Equal(t, tc.sel == "", s.Empty())
			require.Equal(t, tc.sel == "", len(s.Requirements()) == 0, "requirements %v", s.Requirements())
			again, err := meta.ParseLabelSelector(s.String())
			require.NoError(t, err)
			require.Equal(t, s.Requirements(), again.Requirements())
		})
	}
}

func TestParseLabelSelectorErrorsNamePositionAndText(t *testing.T) {
	for _, tc := range []struct {
		sel   string
		pos   int
		found string
	}{
		{"app=web,", 8, ""},
		{"app=web,,x", 8, ","},
		{"app in web", 7, "web"},
		{"app in ()", 7, "("},
		{"app in (a b)", 10, "b"},
		{"app=a b", 6, "b"},
		{"app=-x", 4, "-x"},
		{"-app=x", 0, "-app"},
		{"Bad_Prefix/app=x", 0, "Bad_Prefix/app"},
		{"n>x", 2, "x"},
		{"!", 1, ""},
		{"!app=x", 4, "="},
		{"=x", 0, "="},
		{"app in (a", 9, ""},
	} {
		t.Run(tc.sel, func(t *testing.T) {
			_, err := meta.ParseLabelSelector(tc.sel)
			var se *meta.SelectorError
			require.True(t, errors.As(err, &se), "error %v", err)
			require.Equal(t, tc.pos, se.Pos, "%v", err)
			require.Equal(t, tc.found, se.Found, "%v", err)
			require.Contains(t, err.Error(), "position")
		})
	}
}

func TestLabelSelectorZeroValueSelectsEverything(t *testing.T) {
	var s meta.LabelSelector
	require.True(t, s.Empty())
	require.True(t, s.Matches(nil))
}

func FuzzParseLabelSelector(f *testing.F) {
	for _, s := range []string{"", "a=b", "a in (x,y),!b", "a notin (x), c!=d", "x>1,y<2", "a/b=c", "a=(", "!"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		s, err := meta.ParseLabelSelector(in)
		if err != nil {
			var se *meta.SelectorError
			if !errors.As(err, &se) || se.Pos < 0 || se.Pos > len(in) {
				t.Fatalf("bad error for %q: %v", in, err)
			}
			return
		}
		_ = s.Matches(map[string]string{"a": "b"})
		again, err := meta.ParseLabelSelector(s.String())
		if err != nil {
			t.Fatalf("canonical form %q of %q does not parse: %v", s.String(), in, err)
		}
		if again.String() != s.String() {
			t.Fatalf("canonical form is not stable: %q then %q", s.String(), again.String())
		}
	})
}

func ExampleParseLabelSelector() {
	sel, err := meta.ParseLabelSelector("tier in (front, edge), app=web, !canary")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(sel)
	fmt.Println(sel.Matches(map[string]string{"app": "web", "tier": "edge"}))
	fmt.Println(sel.Matches(map[string]string{"app": "web", "tier": "edge", "canary": "true"}))
	_, err = meta.ParseLabelSelector("app in web")
	fmt.Println(err)
	// Output:
	// app=web,!canary,tier in (edge,front)
	// true
	// false
	// meta: label selector "app in web": at position 7, "web": expected '(' after in/notin
}
