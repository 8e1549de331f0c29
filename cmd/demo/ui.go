package main

import (
	"bytes"
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io"
	"io/fs"
	"net"
	"net/http"
	"sync"
	"time"
)

// The live page (--ui): one HTML page, a stylesheet and a small script,
// embedded so the demo works with no network and no build step.
//
//go:embed ui
var uiFiles embed.FS

// pageTemplate is index.html; the template only fills in what the script
// needs before its first fetch (the mode and the resource's name).
var pageTemplate = template.Must(template.ParseFS(uiFiles, "ui/index.html"))

// uiServer serves the page, the docs pages its boxes link to, and three
// endpoints:
//
//	GET  /api/state   one JSON snapshot of the data path (see state)
//	GET  /api/events  the same snapshot as server-sent events, on every change
//	POST /api/action  {"action": "<name>", "lang": "zh"}: a button (see actions)
//	GET  /docs/{file} docs/internals.md and its Chinese twin, as HTML
//
// The page and the first two take ?lang=en or ?lang=zh; without it they
// speak the demo's language (--lang). The page takes ?present=1 (or 0)
// for presentation mode; without it, --present decides.
type uiServer struct {
	dash    *dashboard
	lang    lang              // the default language of the page
	present bool              // the page opens in presentation mode (--present)
	actions map[string]action // nil when the demo has no embedded server
	srv     *http.Server
	ln      net.Listener
	wg      sync.WaitGroup
}

// uiAddr makes a bare port (":8080") listen on loopback only: the page can
// restart the fake server and cut its watches, which no other machine
// should be able to do unless asked for by an explicit host.
func uiAddr(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil || host != "" {
		return addr
	}
	return net.JoinHostPort("127.0.0.1", port)
}

// startUI listens on addr and serves until stop is called; l is the
// page's default language.
func startUI(addr string, dash *dashboard, actions []action, l lang) (*uiServer, error) {
	ln, err := net.Listen("tcp", uiAddr(addr))
	if err != nil {
		return nil, fmt.Errorf("--ui %s: %w", addr, err)
	}
	u := &uiServer{dash: dash, ln: ln, lang: l}
	if actions != nil {
		u.actions = map[string]action{}
		for _, a := range actions {
			u.actions[a.name] = a
		}
		dash.mu.Lock()
		dash.actions = actions
		dash.mu.Unlock()
	}
	u.srv = &http.Server{Handler: u.routes(), ReadHeaderTimeout: 10 * time.Second}
	u.wg.Add(1)
	go func() {
		defer u.wg.Done()
		_ = u.srv.Serve(ln) // ends with http.ErrServerClosed at stop
	}()
	return u, nil
}

// URL is where the page is.
func (u *uiServer) URL() string { return "http://" + u.ln.Addr().String() + "/" }

// stop closes the listener and every open connection, the event streams
// included (their contexts end), and waits for the server goroutine.
func (u *uiServer) stop() {
	_ = u.srv.Close()
	u.wg.Wait()
}

func (u *uiServer) routes() http.Handler {
	mux := http.NewServeMux()
	static, _ := fs.Sub(uiFiles, "ui")
	mux.Handle("GET /static/", http.StripPrefix("/static/", http.FileServerFS(static)))
	mux.HandleFunc("GET /{$}", u.page)
	mux.HandleFunc("GET /api/state", u.state)
	mux.HandleFunc("GET /api/events", u.events)
	mux.HandleFunc("GET /docs/{file}", serveDoc)
	mux.HandleFunc("POST /api/action", u.action)
	mux.HandleFunc("/api/action", onlyMethod("POST", "use POST with a JSON body {\"action\": \"<name>\"}"))
	mux.HandleFunc("/api/state", onlyMethod("GET", "use GET"))
	mux.HandleFunc("/api/events", onlyMethod("GET", "use GET, as an EventSource does"))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeUIError(w, http.StatusNotFound, fmt.Sprintf("no page at %s %s: the page is /, its data /api/state and /api/events, its buttons POST /api/action, its docs /docs/", r.Method, r.URL.Path))
	})
	return mux
}

// langOf is the language a request asks for with ?lang=, else the page's.
func (u *uiServer) langOf(r *http.Request) lang {
	if l, ok := localeLang(r.URL.Query().Get("lang")); ok {
		return l
	}
	return u.lang
}

func (u *uiServer) page(w http.ResponseWriter, r *http.Request) {
	l := u.langOf(r)
	var body bytes.Buffer
	data := newPageData(u.dash.snapshot(l), l)
	data.Present, data.PresentDefault = u.present, u.present
	if v := r.URL.Query().Get("present"); v != "" {
		data.Present = v == "1" || v == "true"
	}
	if err := pageTemplate.Execute(&body, data); err != nil {
		writeUIError(w, http.StatusInternalServerError, err.Error())
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_, _ = body.WriteTo(w)
}

func (u *uiServer) state(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	_ = json.NewEncoder(w).Encode(u.dash.snapshot(u.langOf(r)))
}

// events streams a snapshot at once and then after every change, at most
// four a second: a burst of churn or a relist of thousands of objects must
// not turn into thousands of frames.
func (u *uiServer) events(w http.ResponseWriter, r *http.Request) {
	flusher, ok := w.(http.Flusher)
	if !ok {
		writeUIError(w, http.StatusInternalServerError, "streaming is not supported by this connection")
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	const minGap = 250 * time.Millisecond
	l := u.langOf(r)
	for {
		changed := u.dash.changes()
		body, err := json.Marshal(u.dash.snapshot(l))
		if err != nil {
			return
		}
		if _, err := fmt.Fprintf(w, "data: %s\n\n", body); err != nil {
			return
		}
		flusher.Flush()
		gap := time.NewTimer(minGap)
		select {
		case <-r.Context().Done():
			gap.Stop()
			return
		case <-gap.C:
		}
		select {
		case <-r.Context().Done():
			return
		case <-changed:
		}
	}
}

// actionRequest is the body of POST /api/action.
type actionRequest struct {
	Action string `json:"action"`
	Lang   string `json:"lang,omitempty"` // of the answer; the page's default without it
}

// actionReply answers it: what the button did, in a sentence for the page.
type actionReply struct {
	Action string `json:"action"`
	Result string `json:"result"`
}

func (u *uiServer) action(w http.ResponseWriter, r *http.Request) {
	var req actionRequest
	dec := json.NewDecoder(io.LimitReader(r.Body, 4096))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		writeUIError(w, http.StatusBadRequest, fmt.Sprintf("the body must be JSON {\"action\": \"<name>\"}: %v", err))
		return
	}
	if u.actions == nil {
		writeUIError(w, http.StatusConflict, "the demo reads an API server it did not start (--kubeconfig or --master): the page has no buttons there, it only shows")
		return
	}
	a, ok := u.actions[req.Action]
	if !ok {
		writeUIError(w, http.StatusBadRequest, fmt.Sprintf("unknown action %q; known: %s", req.Action, u.actionNames()))
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), 10*time.Second)
	defer cancel()
	l := u.lang
	if req.Lang != "" {
		l, _ = localeLang(req.Lang)
	}
	result, err := a.run(ctx)
	if err != nil {
		writeUIError(w, http.StatusInternalServerError, fmt.Sprintf("%s: %v", a.name, err))
		return
	}
	u.dash.touch() // a button may change what the page shows (the churn's pace)
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(actionReply{Action: a.name, Result: result.in(l)})
}

func (u *uiServer) actionNames() string {
	u.dash.mu.Lock()
	defer u.dash.mu.Unlock()
	names := ""
	for i, a := range u.dash.actions {
		if i > 0 {
			names += ", "
		}
		names += a.name
	}
	return names
}

// onlyMethod answers a known path asked with the wrong method.
func onlyMethod(allow, hint string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Allow", allow)
		writeUIError(w, http.StatusMethodNotAllowed, fmt.Sprintf("%s %s: %s", r.Method, r.URL.Path, hint))
	}
}

// uiError is the body of every 4xx and 5xx answer of the page's endpoints.
type uiError struct {
	Error string `json:"error"`
	Code  int    `json:"code"`
}

func writeUIError(w http.ResponseWriter, code int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(uiError{Error: msg, Code: code})
}

// errNoObject is returned by a button that needs one of the churn's
// objects when there is none.
var errNoObject = errors.New("no object of the demo's churn to act on: create one first")
