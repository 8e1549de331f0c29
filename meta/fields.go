package meta

import (
	"strings"
)

// FieldRequirement is one term of a field selector. Operator is "=" or "!="
// ("==" is parsed as "=").
type FieldRequirement struct {
	Field    string
	Operator string
	Value    string
}

// FieldSelector is a parsed field selector: every requirement must hold. The
// zero value selects everything. It is immutable and safe for concurrent use.
type FieldSelector struct {
	reqs []FieldRequirement
}

// ParseFieldSelector parses comma-joined "field=value", "field==value" and
// "field!=value" terms. Any field name is accepted, so a server that knows more
// fields can read them with Requirements; Matches knows metadata.name and
// metadata.namespace. In values, a backslash escapes the next character
// (`\,`, `\=`, `\\`), as kube-apiserver expects.
func ParseFieldSelector(s string) (FieldSelector, error) {
	var reqs []FieldRequirement
	if strings.TrimSpace(s) == "" {
		return FieldSelector{}, nil
	}
	for start := 0; start <= len(s); {
		end := termEnd(s, start)
		r, err := parseFieldTerm(s, start, end)
		if err != nil {
			return FieldSelector{}, err
		}
		reqs = append(reqs, r)
		start = end + 1
	}
	return FieldSelector{reqs: reqs}, nil
}

// termEnd returns the index of the first unescaped ',' at or after start, or
// len(s).
func termEnd(s string, start int) int {
	for i := start; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case ',':
			return i
		}
	}
	return len(s)
}

// parseFieldTerm parses s[start:end] as one "field op value" term.
func parseFieldTerm(s string, start, end int) (FieldRequirement, error) {
	term := s[start:end]
	fail := func(pos int, found, reason string) error {
		return &SelectorError{Kind: "field", Input: s, Pos: pos, Found: found, Reason: reason}
	}
	opAt, op, opLen := -1, "", 0
	for i := 0; i < len(term) && opAt < 0; i++ {
		switch {
		case strings.HasPrefix(term[i:], "!="):
			opAt, op, opLen = i, "!=", 2
		case strings.HasPrefix(term[i:], "=="):
			opAt, op, opLen = i, "=", 2
		case term[i] == '=':
			opAt, op, opLen = i, "=", 1
		}
	}
	if opAt < 0 {
		return FieldRequirement{}, fail(start, term, "expected field=value, field==value or field!=value")
	}
	field := strings.TrimSpace(term[:opAt])
	if field == "" {
		return FieldRequirement{}, fail(start, term, "the field name is empty")
	}
	if strings.HasSuffix(field, "!") {
		// "a! =b" would print as "a!=b", which means something else.
		return FieldRequirement{}, fail(start, term, "the field name ends in '!' (write != without a space)")
	}
	value, ok := unescapeFieldValue(term[opAt+opLen:])
	if !ok {
		return FieldRequirement{}, fail(start+opAt+opLen, term[opAt+opLen:], "invalid escape in the value (only \\\\, \\, and \\= are allowed)")
	}
	return FieldRequirement{Field: field, Operator: op, Value: value}, nil
}

func unescapeFieldValue(v string) (string, bool) {
	if !strings.ContainsAny(v, `\=`) {
		return v, true
	}
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch c {
		case '\\':
			if i+1 == len(v) || strings.IndexByte(`\,=`, v[i+1]) < 0 {
				return "", false
			}
			i++
			b.WriteByte(v[i])
		case '=':
			return "", false // an unescaped '=' in a value is ambiguous
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), true
}

// Requirements returns a copy of the selector's terms, in input order.
func (s FieldSelector) Requirements() []FieldRequirement {
	return append([]FieldRequirement(nil), s.reqs...)
}

// Empty reports whether s selects everything.
func (s FieldSelector) Empty() bool { return len(s.reqs) == 0 }

// Matches reports whether m satisfies every requirement. Fields other than
// metadata.name and metadata.namespace never match: check them with
// MatchesFunc.
func (s FieldSelector) Matches(m *ObjectMeta) bool {
	return s.MatchesFunc(func(field string) (string, bool) {
		switch field {
		case "metadata.name":
			return m.Name, true
		case "metadata.namespace":
			return m.Namespace, true
		}
		return "", false
	})
}

// MatchesFunc reports whether the fields get returns satisfy every
// requirement; a field get does not know (ok false) makes s not match.
func (s FieldSelector) MatchesFunc(get func(field string) (value string, ok bool)) bool {
	for _, r := range s.reqs {
		v, ok := get(r.Field)
		if !ok || (v == r.Value) != (r.Operator == "=") {
			return false
		}
	}
	return true
}

// String returns s in selector syntax, values escaped.
func (s FieldSelector) String() string {
	parts := make([]string, len(s.reqs))
	esc := strings.NewReplacer(`\`, `\\`, `,`, `\,`, `=`, `\=`)
	for i, r := range s.reqs {
		parts[i] = r.Field + r.Operator + esc.Replace(r.Value)
	}
	return strings.Join(parts, ",")
}
