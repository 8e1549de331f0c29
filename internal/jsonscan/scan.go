package jsonscan

import (
	"errors"
	"sort"
)

// ErrSyntax is the error of ScanValue, ScanString, Members and Elements on
// input that is not JSON; the index they return with it is the offset of
// the fault.
var ErrSyntax = errors.New("invalid JSON")

// errTooDeep is ScanValue's and Members' error past the nesting limit.
var errTooDeep = errors.New("JSON nested too deep")

// ScanString returns the end (after the closing quote) of the string whose
// opening quote is at b[i], and whether it holds escapes. A control
// character is an error at its offset; escapes are checked by AppendUnquote.
func ScanString(b []byte, i int) (end int, escaped bool, err error) {
	for j := i + 1; j < len(b); j++ {
		switch c := b[j]; {
		case c == '"':
			return j + 1, escaped, nil
		case c == '\\':
			escaped = true
			j++
		case c < 0x20:
			return j, false, ErrSyntax
		}
	}
	return len(b), false, ErrSyntax
}

// ScanValue returns the end of the value starting at b[i] (no leading
// space), checking its structure; depth is the nesting of b[i], and an
// object or array that would nest maxDepth deep or more is an error. When
// rec is not nil every object and array is recorded in it. A number is
// delimited, not checked: its caller parses it.
func ScanValue(b []byte, i, depth, maxDepth int, rec *Composites) (int, error) {
	if i >= len(b) {
		return i, ErrSyntax
	}
	switch c := b[i]; {
	case c == '"':
		end, _, err := ScanString(b, i)
		return end, err
	case c == '{' || c == '[':
		if depth >= maxDepth {
			return i, errTooDeep
		}
		if rec == nil {
			return scanComposite(b, i, depth+1, maxDepth, nil)
		}
		k := len(rec.opens)
		rec.opens, rec.ends = append(rec.opens, int32(i)), append(rec.ends, 0)
		end, err := scanComposite(b, i, depth+1, maxDepth, rec)
		rec.ends[k] = int32(end)
		return end, err
	case c == 't':
		return ScanLiteral(b, i, "true")
	case c == 'f':
		return ScanLiteral(b, i, "false")
	case c == 'n':
		return ScanLiteral(b, i, "null")
	case c == '-' || c >= '0' && c <= '9':
		j := i + 1
		for j < len(b) && (b[j] >= '0' && b[j] <= '9' || b[j] == '.' || b[j] == 'e' || b[j] == 'E' || b[j] == '+' || b[j] == '-') {
			j++
		}
		return j, nil
	}
	return i, ErrSyntax
}

// ScanLiteral returns the end of lit (true, false or null) at b[i].
func ScanLiteral(b []byte, i int, lit string) (int, error) {
	if len(b)-i < len(lit) || string(b[i:i+len(lit)]) != lit {
		return i, ErrSyntax
	}
	return i + len(lit), nil
}

func scanComposite(b []byte, i, depth, maxDepth int, rec *Composites) (int, error) {
	obj := b[i] == '{'
	close := byte(']')
	if obj {
		close = '}'
	}
	i = SkipSpace(b, i+1)
	if i < len(b) && b[i] == close {
		return i + 1, nil
	}
	for {
		var err error
		if obj {
			if i >= len(b) || b[i] != '"' {
				return i, ErrSyntax
			}
			if i, _, err = ScanString(b, i); err != nil {
				return i, err
			}
			i = SkipSpace(b, i)
			if i >= len(b) || b[i] != ':' {
				return i, ErrSyntax
			}
			i = SkipSpace(b, i+1)
		}
		if i, err = ScanValue(b, i, depth, maxDepth, rec); err != nil {
			return i, err
		}
		i = SkipSpace(b, i)
		if i >= len(b) {
			return i, ErrSyntax
		}
		if b[i] == close {
			return i + 1, nil
		}
		if b[i] != ',' {
			return i, ErrSyntax
		}
		i = SkipSpace(b, i+1)
	}
}

// Composites records where each object and array of a document starts and
// ends, in document order (ScanValue fills it), so that a reader steps over
// a nested value in O(log n) instead of scanning it again at every level.
type Composites struct {
	opens, ends []int32
	hint        int // the next entry to try first: lookups mostly go in document order
}

// End is the end of the composite value starting at i, or -1.
func (c *Composites) End(i int) int {
	k := c.hint
	if k >= len(c.opens) || int(c.opens[k]) != i {
		k = sort.Search(len(c.opens), func(k int) bool { return int(c.opens[k]) >= i })
		if k == len(c.opens) || int(c.opens[k]) != i {
			return -1
		}
	}
	c.hint = k + 1
	return int(c.ends[k])
}

// Member is one name/value pair of an object: Name is the raw string
// (without quotes, escapes left in), Start and End the raw value's span,
// NameAt the offset of the name's opening quote.
type Member struct {
	Name        []byte
	NameEscaped bool
	Start, End  int
	NameAt      int
}

// SkipFunc returns the end of the value at b[i] at nesting depth: a
// ScanValue, or a lookup in Composites a ScanValue filled.
type SkipFunc func(b []byte, i, depth int) (int, error)

// Members calls fn for each member of the object at b[i] (no leading
// space), in order, duplicates included, stepping over each value with
// skip, and returns the object's end. An error (fn's included) comes with
// the offset it concerns: fn's with the member value's start.
func Members(b []byte, i, depth, maxDepth int, skip SkipFunc, fn func(m Member) error) (int, error) {
	if i >= len(b) || b[i] != '{' {
		return i, errors.New("want a JSON object")
	}
	if depth >= maxDepth {
		return i, errTooDeep
	}
	i = SkipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return i + 1, nil
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return i, ErrSyntax
		}
		end, esc, err := ScanString(b, i)
		if err != nil {
			return i, err
		}
		m := Member{Name: b[i+1 : end-1], NameEscaped: esc, NameAt: i}
		i = SkipSpace(b, end)
		if i >= len(b) || b[i] != ':' {
			return i, ErrSyntax
		}
		i = SkipSpace(b, i+1)
		m.Start = i
		if i, err = skip(b, i, depth+1); err != nil {
			return i, err
		}
		m.End = i
		if err := fn(m); err != nil {
			return m.Start, err
		}
		i = SkipSpace(b, i)
		if i >= len(b) {
			return i, ErrSyntax
		}
		if b[i] == '}' {
			return i + 1, nil
		}
		if b[i] != ',' {
			return i, ErrSyntax
		}
		i = SkipSpace(b, i+1)
	}
}

// Elements calls fn for each element's span of the array at b[i] (no
// leading space), stepping over each with skip.
func Elements(b []byte, i, depth int, skip SkipFunc, fn func(start, end int) error) error {
	if i >= len(b) || b[i] != '[' {
		return errors.New("want a JSON array")
	}
	i = SkipSpace(b, i+1)
	if i < len(b) && b[i] == ']' {
		return nil
	}
	for {
		end, err := skip(b, i, depth+1)
		if err != nil {
			return err
		}
		if err := fn(i, end); err != nil {
			return err
		}
		i = SkipSpace(b, end)
		if i >= len(b) {
			return ErrSyntax
		}
		if b[i] == ']' {
			return nil
		}
		if b[i] != ',' {
			return ErrSyntax
		}
		i = SkipSpace(b, i+1)
	}
}
