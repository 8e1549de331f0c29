package shard

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// ParseError is a selector kube-apiserver would refuse. Msg is worded as the
// server words the same mistake (k8s.io/apiserver/pkg/sharding in v1.37) where
// the mistake is in the shard ranges themselves; plain syntax errors, which
// the server leaves to its CEL parser, are worded here.
type ParseError struct {
	Offset int // byte offset in the input where the problem was seen
	Msg    string
}

func (e *ParseError) Error() string {
	return fmt.Sprintf("shard: invalid selector at byte %d: %s", e.Offset, e.Msg)
}

// maxDepth bounds nested parentheses, so hostile input cannot exhaust the
// stack; CEL's own parser stops at a few hundred.
const maxDepth = 64

// Parse reads a shardSelector: shardRange(field, 'start', 'end') calls joined
// by "||", as kube-apiserver v1.37 accepts them. That server parses the
// parameter as a CEL expression and keeps only these calls, so spaces,
// newlines, parentheses and double quotes are allowed too. Bounds are '0x'
// and exactly 16 lowercase hex digits, or '0x10000000000000000' (2^64) for an
// end; start must be below end; every range must hash the same field.
// Overlapping ranges are accepted, as the server accepts them.
//
// An empty (or all-space) input is an error, as on the server: a client that
// wants everything omits the parameter.
func Parse(s string) (Selector, error) {
	p := &parser{src: s}
	p.skipSpace()
	if p.pos == len(s) {
		return Selector{}, p.errAt(0, "empty shard selector is not allowed; omit the parameter for unfiltered lists")
	}
	var sel Selector
	if err := p.or(&sel, 0); err != nil {
		return Selector{}, err
	}
	p.skipSpace()
	if p.pos != len(s) {
		return Selector{}, p.errAt(p.pos, fmt.Sprintf("unexpected %q after the selector", p.rest()))
	}
	return sel, nil
}

type parser struct {
	src string
	pos int
}

func (p *parser) errAt(at int, msg string) error { return &ParseError{Offset: at, Msg: msg} }

// rest is a short view of the input from pos, for messages.
func (p *parser) rest() string {
	r := p.src[p.pos:]
	if len(r) > 20 {
		r = r[:20] + "…"
	}
	return r
}

// skipSpace skips CEL whitespace and // comments.
func (p *parser) skipSpace() {
	for p.pos < len(p.src) {
		switch c := p.src[p.pos]; {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f':
			p.pos++
		case strings.HasPrefix(p.src[p.pos:], "//"):
			for p.pos < len(p.src) && p.src[p.pos] != '\n' {
				p.pos++
			}
		default:
			return
		}
	}
}

// eat consumes tok (after spaces) and reports whether it was there.
func (p *parser) eat(tok string) bool {
	p.skipSpace()
	if strings.HasPrefix(p.src[p.pos:], tok) {
		p.pos += len(tok)
		return true
	}
	return false
}

// or := term ("||" term)*
func (p *parser) or(sel *Selector, depth int) error {
	for {
		if err := p.term(sel, depth); err != nil {
			return err
		}
		if !p.eat("||") {
			return nil
		}
	}
}

// term := "(" or ")" | shardRange(...)
func (p *parser) term(sel *Selector, depth int) error {
	p.skipSpace()
	at := p.pos
	if p.eat("(") {
		if depth >= maxDepth {
			return p.errAt(at, "parentheses nested too deep")
		}
		if err := p.or(sel, depth+1); err != nil {
			return err
		}
		if !p.eat(")") {
			return p.errAt(p.pos, "missing ')'")
		}
		return nil
	}
	name := p.ident()
	if name == "" {
		return p.errAt(at, "expected shardRange() call or || operator")
	}
	if !p.eat("(") {
		return p.errAt(p.pos, fmt.Sprintf("expected shardRange() call or || operator, got %q", name))
	}
	if name != "shardRange" {
		return p.errAt(at, fmt.Sprintf("unsupported function %q; only shardRange() and || are allowed", name))
	}
	return p.call(sel, at)
}

// ident reads an identifier, or returns "".
func (p *parser) ident() string {
	p.skipSpace()
	start := p.pos
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		if c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || p.pos > start && '0' <= c && c <= '9' {
			p.pos++
			continue
		}
		break
	}
	return p.src[start:p.pos]
}

// arg is one argument of shardRange: a field path or a string literal.
type arg struct {
	at          int
	path, str   string
	isPath, isS bool
}

// call reads the arguments after "shardRange(" and adds the range to sel.
func (p *parser) call(sel *Selector, at int) error {
	var args []arg
	for !p.eat(")") {
		if len(args) > 0 && !p.eat(",") {
			return p.errAt(p.pos, "expected ',' or ')' in shardRange()")
		}
		a, err := p.arg()
		if err != nil {
			return err
		}
		args = append(args, a)
	}
	if len(args) != 3 {
		return p.errAt(at, fmt.Sprintf("shardRange() requires exactly 3 arguments, got %d", len(args)))
	}
	r, f, err := p.rangeOf(args)
	if err != nil {
		return err
	}
	if len(sel.Ranges) > 0 && sel.Field != f {
		return p.errAt(at, fmt.Sprintf("all shard ranges must use the same field, got %q and %q", sel.Field, f))
	}
	sel.Field = f
	sel.Ranges = append(sel.Ranges, r)
	return nil
}

func (p *parser) arg() (arg, error) {
	p.skipSpace()
	a := arg{at: p.pos}
	if p.pos < len(p.src) && (p.src[p.pos] == '\'' || p.src[p.pos] == '"') {
		s, err := p.quoted()
		a.str, a.isS = s, true
		return a, err
	}
	first := p.ident()
	if first == "" {
		return a, p.errAt(p.pos, fmt.Sprintf("unexpected %q in shardRange()", p.rest()))
	}
	a.path, a.isPath = first, true
	for p.eat(".") {
		next := p.ident()
		if next == "" {
			return a, p.errAt(p.pos, "expected a field name after '.'")
		}
		a.path += "." + next
	}
	return a, nil
}

// quoted reads a '…' or "…" literal. Escapes are refused: no valid bound
// needs one.
func (p *parser) quoted() (string, error) {
	q, start := p.src[p.pos], p.pos
	p.pos++
	for p.pos < len(p.src) {
		switch c := p.src[p.pos]; c {
		case q:
			p.pos++
			return p.src[start+1 : p.pos-1], nil
		case '\\', '\n', '\r':
			return "", p.errAt(p.pos, "escapes and line breaks are not supported in a shard bound")
		}
		p.pos++
	}
	return "", p.errAt(start, "unterminated string literal")
}

// rangeOf checks shardRange's three arguments as the server does.
func (p *parser) rangeOf(args []arg) (Range, Field, error) {
	if !args[0].isPath {
		return Range{}, "", p.errAt(args[0].at, "shardRange() first argument: expected field path (e.g. object.metadata.uid)")
	}
	f := Field(args[0].path)
	if !f.valid() {
		return Range{}, "", p.errAt(args[0].at, fmt.Sprintf("unsupported field path %q; supported: %s, %s", f, UID, Namespace))
	}
	start, err := p.bound(args[1], "hexStart")
	if err != nil {
		return Range{}, "", err
	}
	end, err := p.bound(args[2], "hexEnd")
	if err != nil {
		return Range{}, "", err
	}
	// end is 2^64 when end.top; start cannot be (the server compares the
	// hex strings, and 2^64 is never below another bound).
	if start.top || !end.top && start.v >= end.v {
		return Range{}, "", p.errAt(args[1].at, fmt.Sprintf("shard range start %s must be less than end %s", args[1].str, args[2].str))
	}
	r := Range{Start: start.v, Last: math.MaxUint64}
	if !end.top {
		r.Last = end.v - 1
	}
	return r, f, nil
}

// bound is a parsed hex bound: v, or 2^64 when top.
type bound struct {
	v   uint64
	top bool
}

func (p *parser) bound(a arg, name string) (bound, error) {
	if !a.isS {
		return bound{}, p.errAt(a.at, fmt.Sprintf("%s must be a string literal (e.g. '0xff')", name))
	}
	s := a.str
	hex, ok := strings.CutPrefix(s, "0x")
	switch {
	case !ok:
		return bound{}, p.errAt(a.at, fmt.Sprintf("%s must have '0x' prefix, got %q", name, s))
	case hex == "":
		return bound{}, p.errAt(a.at, fmt.Sprintf("%s: hex value is required after '0x'", name))
	case len(hex) > 17:
		return bound{}, p.errAt(a.at, fmt.Sprintf("%s: hex value too long (%d chars, max 17): %q", name, len(hex), hex))
	}
	for i := 0; i < len(hex); i++ {
		if c := hex[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return bound{}, p.errAt(a.at, fmt.Sprintf("%s: invalid hex character %q in %q", name, string(c), s))
		}
	}
	switch {
	case len(hex) == 17 && s == endOfSpace:
		return bound{top: true}, nil
	case len(hex) == 17:
		return bound{}, p.errAt(a.at, fmt.Sprintf("%s: 17-digit hex value must be '%s' (2^64), got %q", name, endOfSpace, s))
	case len(hex) != 16:
		padded := "0x" + strings.Repeat("0", 16-len(hex)) + hex
		return bound{}, p.errAt(a.at, fmt.Sprintf("%s must be a 0x-prefixed 16-digit hex value, got %q (did you mean %q?)", name, s, padded))
	}
	v, err := strconv.ParseUint(hex, 16, 64)
	if err != nil { // unreachable after the checks above; kept for safety
		return bound{}, p.errAt(a.at, fmt.Sprintf("%s: %v", name, errors.Unwrap(err)))
	}
	return bound{v: v}, nil
}
