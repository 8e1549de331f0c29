package jsonscan

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/stretchr/testify/require"
)

// A reference decoder: duplicate names allowed, as the list and watch
// decoders allow them, and the bytes of every member and element as it
// reads them.
var lenient = []jsontext.Options{jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true)}

type refMember struct {
	name  string // unquoted
	value string // raw, as in the input
}

// refChildren returns the members of object v or the elements of array v
// (names empty) as the reference decoder reads them.
func refChildren(t *testing.T, v []byte) []refMember {
	t.Helper()
	dec := jsontext.NewDecoder(bytes.NewReader(v), lenient...)
	open, err := dec.ReadToken()
	require.NoError(t, err)
	var out []refMember
	for dec.PeekKind() != ']' && dec.PeekKind() != '}' {
		var m refMember
		if open.Kind() == '{' {
			name, err := dec.ReadToken()
			require.NoError(t, err)
			m.name = name.String()
		}
		val, err := dec.ReadValue()
		require.NoError(t, err)
		m.value = string(val)
		out = append(out, m)
	}
	return out
}

const deep = 10000 // no limit, for the agreement checks

// checkAgainstDecoder checks, for the valid JSON value v and every value
// nested in it, that both halves find the value's end where the reference
// decoder does, and walk the members and elements it reads, in order.
func checkAgainstDecoder(t *testing.T, v []byte) {
	t.Helper()
	var rec Composites
	end, err := ScanValue(v, 0, 0, deep, &rec)
	require.NoError(t, err, "ScanValue %s", v)
	require.Equal(t, len(v), end, "ScanValue's end in %s", v)
	end, ok := ValueEnd(v, 0)
	require.True(t, ok, "ValueEnd %s", v)
	require.Equal(t, len(v), end, "ValueEnd's end in %s", v)
	if v[0] != '{' && v[0] != '[' {
		return
	}
	require.Equal(t, len(v), rec.End(0), "Composites' end of %s", v)
	want := refChildren(t, v)
	skip := func(b []byte, i, depth int) (int, error) { return ScanValue(b, i, depth, deep, nil) }
	var scanned, skipped []refMember
	if v[0] == '{' {
		end, err = Members(v, 0, 0, deep, skip, func(m Member) error {
			name, err := AppendUnquote(nil, v[m.NameAt:m.NameAt+len(m.Name)+2])
			require.NoError(t, err)
			require.Equal(t, bytes.IndexByte(m.Name, '\\') >= 0, m.NameEscaped, "NameEscaped of %s", m.Name)
			scanned = append(scanned, refMember{string(name), string(v[m.Start:m.End])})
			return nil
		})
		require.NoError(t, err, "Members %s", v)
		require.Equal(t, len(v), end, "Members' end in %s", v)
		end, ok = EachMember(v, 0, func(_ int, name []byte, at int) (int, bool) {
			vend, ok := ValueEnd(v, at)
			require.True(t, ok)
			n, err := AppendUnquote(nil, name)
			require.NoError(t, err)
			skipped = append(skipped, refMember{string(n), string(v[at:vend])})
			return vend, true
		})
		require.True(t, ok, "EachMember %s", v)
		require.Equal(t, len(v), end, "EachMember's end in %s", v)
	} else {
		require.NoError(t, Elements(v, 0, 0, skip, func(start, end int) error {
			scanned = append(scanned, refMember{"", string(v[start:end])})
			vend, ok := ValueEnd(v, start)
			require.True(t, ok)
			skipped = append(skipped, refMember{"", string(v[start:vend])})
			return nil
		}), "Elements %s", v)
	}
	require.Equal(t, want, scanned, "the Scan half's walk of %s", v)
	require.Equal(t, want, skipped, "the Skip half's walk of %s", v)
	for _, m := range want {
		checkAgainstDecoder(t, []byte(m.value))
	}
}

var walkSeeds = []string{
	`{"kind":"Pod","apiVersion":"v1","metadata":{"name":"a","labels":{"x":"y"}},"spec":{}}`,
	`{"spec":{"a":["}",{"b":"]"}]},"status":"\"quoted\\\\","metadata":{"name":"late"}}`,
	`{"meta\u0064ata":{"name":"escaped"},"a\"b":1,"c\\":2}`,
	` { "x" : 1 , "y" : true , "z" : null , "w" : [ -1.5e+3 , false , { } , [ ] ] } `,
	`{"a":1,"a":2,"a":{"a":[3]}}`,
	`[[[["deep"]]],{"k":"v"},"s",0,-0.0,1E9,true,false,null]`,
	"{\"bad utf-8 \xff\":\"\xe4\xb8\",\"\\ud800\":\"\\u00e9\"}",
	`"just a string"`, `12`, `null`, `{}`, `[]`,
}

func TestBothHalvesAgreeWithADecoder(t *testing.T) {
	for _, s := range walkSeeds {
		checkAgainstDecoder(t, bytes.TrimSpace([]byte(s)))
	}
}

// FuzzBothHalvesAgreeWithADecoder: on valid JSON both halves agree with the
// reference decoder; on anything, no function panics or reads out of bounds.
func FuzzBothHalvesAgreeWithADecoder(f *testing.F) {
	for _, s := range walkSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		for i := range min(len(b), 8) { // from several starts, as callers step in mid-document
			_, _ = ValueEnd(b, i)
			_, _ = StringEnd(b, i)
			_, _ = ScanValue(b, i, 0, 64, nil)
			_, _ = EachMember(b, i, func(_ int, _ []byte, at int) (int, bool) { e, _ := ValueEnd(b, at); return e, true })
			_, _ = Members(b, i, 0, 64, func(b []byte, i, d int) (int, error) { return ScanValue(b, i, d, 64, nil) }, func(Member) error { return nil })
		}
		if !jsontext.Value(b).IsValid(lenient...) {
			return
		}
		checkAgainstDecoder(t, bytes.TrimSpace(b))
	})
}

// TestScanReportsTheOffsetOfTheFault: the index returned with an error is
// where the input goes wrong, which kubeproto's DecodeError reports.
func TestScanReportsTheOffsetOfTheFault(t *testing.T) {
	for _, tc := range []struct {
		in   string
		at   int
		want string
	}{
		{`{"a":1 "b":2}`, 7, "invalid JSON"},
		{`{"a":1,}`, 7, "invalid JSON"},
		{`{"a" 1}`, 5, "invalid JSON"},
		{"{\"a\":\"x\ny\"}", 7, "invalid JSON"},
		{`[1,2`, 4, "invalid JSON"},
		{`[1,]`, 3, "invalid JSON"},
		{`[tru]`, 1, "invalid JSON"},
		{`{"a":nul}`, 5, "invalid JSON"},
		{`"open`, 5, "invalid JSON"},
		{`{"a":x}`, 5, "invalid JSON"},
		{``, 0, "invalid JSON"},
	} {
		end, err := ScanValue([]byte(tc.in), 0, 0, deep, nil)
		require.EqualError(t, err, tc.want, "%q", tc.in)
		require.True(t, errors.Is(err, ErrSyntax), "%q", tc.in)
		require.Equal(t, tc.at, end, "offset of the fault in %q", tc.in)
	}
}

// TestScanBoundsNesting: maxDepth objects and arrays nest; one more is an
// error at the offset of the one too many, whether ScanValue or Members
// meets it.
func TestScanBoundsNesting(t *testing.T) {
	const max = 100
	ok := strings.Repeat("[", max) + strings.Repeat("]", max)
	end, err := ScanValue([]byte(ok), 0, 0, max, nil)
	require.NoError(t, err)
	require.Equal(t, len(ok), end)

	tooDeep := strings.Repeat(`{"a":`, max) + "{}" + strings.Repeat("}", max)
	end, err = ScanValue([]byte(tooDeep), 0, 0, max, nil)
	require.EqualError(t, err, "JSON nested too deep")
	require.Equal(t, len(`{"a":`)*max, end, "the offset of the object one too deep")

	_, err = Members([]byte(`{}`), 0, max, max, nil, nil)
	require.EqualError(t, err, "JSON nested too deep")
	_, err = Members([]byte(`{}`), 0, max-1, max, nil, nil)
	require.NoError(t, err)

	// Skip has no limit: it counts brackets without recursing.
	end, ok2 := ValueEnd([]byte(tooDeep), 0)
	require.True(t, ok2)
	require.Equal(t, len(tooDeep), end)
}

func TestMembersAndElementsRefuseTheWrongKind(t *testing.T) {
	_, err := Members([]byte(`[1]`), 0, 0, deep, nil, nil)
	require.EqualError(t, err, "want a JSON object")
	require.EqualError(t, Elements([]byte(`{}`), 0, 0, nil, nil), "want a JSON array")
	_, ok := EachMember([]byte(`[1]`), 0, nil)
	require.False(t, ok)
}

// TestEachMemberStopsWhereTheCallerSays: a walk the caller ends early
// returns the end the caller gave, and an end before the value's start
// is malformed input.
func TestEachMemberStopsWhereTheCallerSays(t *testing.T) {
	b := []byte(`{"a":[1],"b":2}`)
	end, ok := EachMember(b, 0, func(_ int, name []byte, at int) (int, bool) {
		e, _ := ValueEnd(b, at)
		return e, string(name) != `"a"`
	})
	require.True(t, ok)
	require.Equal(t, len(`{"a":[1]`), end)
	_, ok = EachMember(b, 0, func(_ int, _ []byte, at int) (int, bool) { return at - 1, true })
	require.False(t, ok)
	cut := []byte(`{"a":1`)
	_, ok = EachMember(cut, 0, func(_ int, _ []byte, at int) (int, bool) { e, _ := ValueEnd(cut, at); return e, true })
	require.False(t, ok, "a truncated object")
}

func TestSkipSpaceSkipsTheFourSpacesOnly(t *testing.T) {
	for _, tc := range []struct {
		in   string
		from int
		want int
	}{
		{"", 0, 0}, {" ", 0, 1}, {" \t\n\r", 0, 4}, {" \t\n\rx ", 0, 4}, {"x ", 1, 2},
		{"x", 0, 0}, {"\v\f", 0, 0}, {"\u00a0", 0, 0}, {"  ", 5, 5},
	} {
		require.Equal(t, tc.want, SkipSpace([]byte(tc.in), tc.from), "%q from %d", tc.in, tc.from)
	}
}
