package meta

import (
	"slices"
	"strconv"
	"strings"
)

type tokKind uint8

const (
	tokEOF tokKind = iota
	tokIdent
	tokIn
	tokNotIn
	tokComma
	tokBang
	tokEq
	tokDoubleEq
	tokNotEq
	tokGt
	tokLt
	tokOpen
	tokClose
)

type token struct {
	kind tokKind
	text string
	pos  int
}

// lexer splits a label selector into tokens. An identifier is any run of
// characters that are neither blanks nor one of the selector's symbols; the
// validation of keys and values is left to the parser.
type lexer struct {
	in  string
	pos int
}

// symbols are the one-byte tokens; symbolKinds[i] is the kind of symbols[i].
const symbols = "!=,()<>"

var symbolKinds = [len(symbols)]tokKind{tokBang, tokEq, tokComma, tokOpen, tokClose, tokLt, tokGt}

func isSymbol(c byte) bool { return strings.IndexByte(symbols, c) >= 0 }

func isBlank(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func (l *lexer) next() token {
	for l.pos < len(l.in) && isBlank(l.in[l.pos]) {
		l.pos++
	}
	start := l.pos
	if start == len(l.in) {
		return token{kind: tokEOF, pos: start}
	}
	two := ""
	if start+2 <= len(l.in) {
		two = l.in[start : start+2]
	}
	switch {
	case two == "==":
		l.pos += 2
		return token{tokDoubleEq, two, start}
	case two == "!=":
		l.pos += 2
		return token{tokNotEq, two, start}
	}
	if i := strings.IndexByte(symbols, l.in[start]); i >= 0 {
		l.pos++
		return token{symbolKinds[i], l.in[start:l.pos], start}
	}
	for l.pos < len(l.in) && !isBlank(l.in[l.pos]) && !isSymbol(l.in[l.pos]) {
		l.pos++
	}
	text := l.in[start:l.pos]
	switch text {
	case "in":
		return token{tokIn, text, start}
	case "notin":
		return token{tokNotIn, text, start}
	}
	return token{tokIdent, text, start}
}

// labelParser is a recursive-descent parser with one token of lookahead.
type labelParser struct {
	lex lexer
	tok token
}

func (p *labelParser) next() { p.tok = p.lex.next() }

func (p *labelParser) errorf(reason string) *SelectorError {
	return &SelectorError{Kind: "label", Input: p.lex.in, Pos: p.tok.pos, Found: p.tok.text, Reason: reason}
}

// requirement parses one term, leaving p.tok on the token after it.
func (p *labelParser) requirement() (LabelRequirement, error) {
	if p.tok.kind == tokBang {
		p.next()
		key, err := p.key()
		if err != nil {
			return LabelRequirement{}, err
		}
		return LabelRequirement{Key: key, Operator: LabelDoesNotExist}, nil
	}
	key, err := p.key()
	if err != nil {
		return LabelRequirement{}, err
	}
	r := LabelRequirement{Key: key}
	switch p.tok.kind {
	case tokEOF, tokComma:
		r.Operator = LabelExists
		return r, nil
	case tokEq, tokDoubleEq, tokNotEq:
		r.Operator = LabelEquals
		if p.tok.kind == tokNotEq {
			r.Operator = LabelNotEquals
		}
		p.next()
		v, err := p.value(true)
		r.Values = []string{v}
		return r, err
	case tokIn, tokNotIn:
		r.Operator = LabelIn
		if p.tok.kind == tokNotIn {
			r.Operator = LabelNotIn
		}
		p.next()
		r.Values, err = p.valueSet()
		return r, err
	case tokGt, tokLt:
		r.Operator = LabelGreaterThan
		if p.tok.kind == tokLt {
			r.Operator = LabelLessThan
		}
		p.next()
		v, err := p.integer()
		r.Values = []string{v}
		return r, err
	}
	return r, p.errorf("expected an operator (=, ==, !=, in, notin, >, <), ',' or the end of the selector")
}

// key reads and validates a label key.
func (p *labelParser) key() (string, error) {
	if p.tok.kind != tokIdent && p.tok.kind != tokIn && p.tok.kind != tokNotIn {
		return "", p.errorf("expected a label key")
	}
	if err := ValidateLabelKey(p.tok.text); err != nil {
		return "", p.errorf(strings.TrimPrefix(err.Error(), "meta: "))
	}
	k := p.tok.text
	p.next()
	return k, nil
}

// value reads and validates one label value. When emptyOK, a ',' or the end
// of input stands for the empty value (as in "a=").
func (p *labelParser) value(emptyOK bool) (string, error) {
	switch p.tok.kind {
	case tokIdent, tokIn, tokNotIn:
	case tokEOF, tokComma, tokClose:
		if emptyOK {
			return "", nil
		}
		return "", p.errorf("expected a label value")
	default:
		return "", p.errorf("expected a label value")
	}
	if err := ValidateLabelValue(p.tok.text); err != nil {
		return "", p.errorf(strings.TrimPrefix(err.Error(), "meta: "))
	}
	v := p.tok.text
	p.next()
	return v, nil
}

// valueSet reads "(v1,v2,…)"; an empty item stands for the empty value, an
// empty set is an error (kube-apiserver rejects it too).
func (p *labelParser) valueSet() ([]string, error) {
	if p.tok.kind != tokOpen {
		return nil, p.errorf("expected '(' after in/notin")
	}
	open := p.tok
	p.next()
	if p.tok.kind == tokClose {
		p.tok = open
		return nil, p.errorf("the value set of in/notin must not be empty")
	}
	var vals []string
	for {
		v, err := p.value(true)
		if err != nil {
			return nil, err
		}
		vals = append(vals, v)
		switch p.tok.kind {
		case tokComma:
			p.next()
		case tokClose:
			p.next()
			slices.Sort(vals)
			return slices.Compact(vals), nil
		default:
			return nil, p.errorf("expected ',' or ')' in a value set")
		}
	}
}

// integer reads the bound of > and <.
func (p *labelParser) integer() (string, error) {
	if p.tok.kind != tokIdent {
		return "", p.errorf("expected an integer")
	}
	if _, err := strconv.ParseInt(p.tok.text, 10, 64); err != nil {
		return "", p.errorf("expected an integer")
	}
	v := p.tok.text
	p.next()
	return v, nil
}
