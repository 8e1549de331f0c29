package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
)

// ArticleTimeFormat is the timestamp of every handler line, the article's
// time.Now().Format("2006-01-02 15:04:05").
const ArticleTimeFormat = "2006-01-02 15:04:05"

// lineWriter writes whole lines to one writer from many goroutines: the
// handler, the reflector's trace and the processing loop's trace all print,
// and a line must never be cut by another.
type lineWriter struct {
	mu sync.Mutex // guards w
	w  io.Writer
}

func (l *lineWriter) printf(format string, args ...any) {
	s := fmt.Sprintf(format, args...)
	if !strings.HasSuffix(s, "\n") {
		s += "\n"
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	_, _ = io.WriteString(l.w, s)
}

// Write lets a slog handler share the writer; it writes p as one piece.
func (l *lineWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// articleLine formats one handler call exactly as the article's
// fmt.Println(time.Now().Format(…), "Add: ", key) does: Println puts a
// space between operands, so two spaces follow the colon.
func articleLine(now time.Time, verb, key string) string {
	return fmt.Sprintln(now.Format(ArticleTimeFormat), verb+": ", key)
}

// oneLine turns an error into the single line the demo prints for it:
// multi-line causes (a YAML error lists every bad line) are joined.
func oneLine(err error) string {
	return strings.Join(strings.Fields(err.Error()), " ")
}

// isTerminal reports whether w is a character device (a terminal), which
// decides whether --trace uses colour.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// useColor applies --color and the NO_COLOR convention.
func useColor(mode string, w io.Writer, getenv func(string) string) bool {
	switch mode {
	case "always":
		return true
	case "never":
		return false
	}
	return getenv("NO_COLOR") == "" && isTerminal(w)
}
