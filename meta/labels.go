package meta

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// LabelOperator is the operator of one label requirement.
type LabelOperator string

// The operators of the Kubernetes label selector syntax.
const (
	LabelEquals       LabelOperator = "="     // key=value, key==value
	LabelNotEquals    LabelOperator = "!="    // key!=value; matches when key is absent
	LabelIn           LabelOperator = "in"    // key in (a,b)
	LabelNotIn        LabelOperator = "notin" // key notin (a,b); matches when key is absent
	LabelExists       LabelOperator = "exists"
	LabelDoesNotExist LabelOperator = "!"
	LabelGreaterThan  LabelOperator = "gt" // key>3: the value is an integer above 3
	LabelLessThan     LabelOperator = "lt" // key<3
)

// LabelRequirement is one comma-separated term of a label selector. Values
// is sorted; it holds one value for =, != and the integer operators, none for
// exists and !.
type LabelRequirement struct {
	Key      string
	Operator LabelOperator
	Values   []string
}

// LabelSelector is a parsed label selector: every requirement must hold. The
// zero value selects everything. A LabelSelector is immutable and safe for
// concurrent use.
type LabelSelector struct {
	reqs []LabelRequirement // sorted by key, then operator
}

// SelectorError is a syntax or validation error in a selector, naming where
// in the input it was found.
type SelectorError struct {
	Kind   string // "label" or "field"
	Input  string
	Pos    int    // byte offset of the offending text in Input
	Found  string // the offending text; "" at the end of input
	Reason string
}

func (e *SelectorError) Error() string {
	found := strconv.Quote(e.Found)
	if e.Pos >= len(e.Input) && e.Found == "" {
		found = "the end of the selector"
	}
	return fmt.Sprintf("meta: %s selector %q: at position %d, %s: %s", e.Kind, e.Input, e.Pos, found, e.Reason)
}

// ParseLabelSelector parses the Kubernetes label selector syntax:
// comma-joined terms among "a=b", "a==b", "a!=b", "a in (x,y)",
// "a notin (x)", "a", "!a", "a>1" and "a<1". Keys and values are validated as
// kube-apiserver validates them. "" selects everything.
func ParseLabelSelector(s string) (LabelSelector, error) {
	p := labelParser{lex: lexer{in: s}}
	p.next()
	if p.tok.kind == tokEOF {
		return LabelSelector{}, nil
	}
	var reqs []LabelRequirement
	for {
		r, err := p.requirement()
		if err != nil {
			return LabelSelector{}, err
		}
		reqs = append(reqs, r)
		switch p.tok.kind {
		case tokEOF:
			slices.SortStableFunc(reqs, func(a, b LabelRequirement) int {
				if c := strings.Compare(a.Key, b.Key); c != 0 {
					return c
				}
				return strings.Compare(string(a.Operator), string(b.Operator))
			})
			return LabelSelector{reqs: reqs}, nil
		case tokComma:
			p.next()
		default:
			return LabelSelector{}, p.errorf("expected ',' or the end of the selector")
		}
	}
}

// Requirements returns a copy of the selector's terms, sorted by key.
func (s LabelSelector) Requirements() []LabelRequirement {
	out := make([]LabelRequirement, len(s.reqs))
	for i, r := range s.reqs {
		r.Values = slices.Clone(r.Values)
		out[i] = r
	}
	return out
}

// Empty reports whether s selects everything.
func (s LabelSelector) Empty() bool { return len(s.reqs) == 0 }

// Matches reports whether labels satisfy every requirement of s.
func (s LabelSelector) Matches(labels map[string]string) bool {
	for i := range s.reqs {
		if !s.reqs[i].Matches(labels) {
			return false
		}
	}
	return true
}

// Matches reports whether labels satisfy r.
func (r *LabelRequirement) Matches(labels map[string]string) bool {
	v, ok := labels[r.Key]
	switch r.Operator {
	case LabelExists:
		return ok
	case LabelDoesNotExist:
		return !ok
	case LabelEquals, LabelIn:
		return ok && slices.Contains(r.Values, v)
	case LabelNotEquals, LabelNotIn:
		return !ok || !slices.Contains(r.Values, v)
	case LabelGreaterThan, LabelLessThan:
		return ok && compareInts(r.Operator, v, r.Values[0])
	}
	return false
}

func compareInts(op LabelOperator, label, bound string) bool {
	l, err := strconv.ParseInt(label, 10, 64)
	if err != nil {
		return false
	}
	b, _ := strconv.ParseInt(bound, 10, 64) // validated by the parser
	if op == LabelGreaterThan {
		return l > b
	}
	return l < b
}

// String returns s in the canonical syntax: terms sorted by key, values sorted,
// "=" for equality. Parsing it gives back an equal selector.
func (s LabelSelector) String() string {
	parts := make([]string, len(s.reqs))
	for i, r := range s.reqs {
		parts[i] = r.String()
	}
	return strings.Join(parts, ",")
}

// String returns r in selector syntax.
func (r LabelRequirement) String() string {
	switch r.Operator {
	case LabelExists:
		return r.Key
	case LabelDoesNotExist:
		return "!" + r.Key
	case LabelEquals, LabelNotEquals:
		return r.Key + string(r.Operator) + r.Values[0]
	case LabelIn, LabelNotIn:
		vals := strings.Join(r.Values, ",")
		if vals == "" {
			vals = "," // the set holding only the empty value; "()" would be an empty set
		}
		return r.Key + " " + string(r.Operator) + " (" + vals + ")"
	case LabelGreaterThan:
		return r.Key + ">" + r.Values[0]
	case LabelLessThan:
		return r.Key + "<" + r.Values[0]
	}
	return r.Key + " <unknown operator " + string(r.Operator) + ">"
}
