// Command demo is the informer quick start of the article zerokube grew
// from, runnable anywhere in one command:
//
//	go run ./cmd/demo
//
// It starts an embedded fake API server, creates a few pods in "default",
// keeps a gentle churn going (creates, label updates, deletes), and runs a
// pod informer on "default" with a 60 s resync that prints one line per
// handler call, exactly as the article's program does:
//
//	2023-06-03 14:19:21 Add:  default/example-fcsjw
//	2023-06-03 14:20:21 Update:  default/example-fcsjw
//
// On stderr it prints the server's URL and a kubeconfig, so kubectl in
// another terminal can create, label and delete pods and watch the demo
// react. --kubeconfig or --master points the same demo at a real cluster
// (it then never writes, but for --leader-elect's Lease); --trace prints
// every hop of the data path; --ui serves a live page of it; --leader-elect
// makes it one of several replicas of which only the leader prints (two on
// one demo --serve, then interrupt the leader to see the other take over);
// demo -h lists every flag.
//
// Language: --lang zh (or LC_ALL, LC_MESSAGES or LANG naming Chinese)
// turns the trace's words, the demo's status lines and the live page into
// Chinese, for the readers of the article; English is the default. The
// handler lines, the trace's stage names and op names stay the same in
// both, so scripts that read them keep working. Errors of flags stay in
// English; a failure of the informer and the libraries' warnings are said
// in Chinese with the English original after them, for a search.
//
// Lessons: with --ui the live page's buttons break the watch on purpose,
// and the informer takes bounds a class can wait for (lessons.go: backoff
// 250ms doubling to 1s, a watch silent for 5s ends), which it says at
// start; each lesson's failures are told as part of it, not as warnings.
// --present opens the page in presentation mode, for a projector.
//
// Output: stdout carries the handler lines (and, with --trace, the trace
// lines, in order with them); stderr carries the banner, status and errors.
// Bad flags, an unreachable server or a broken kubeconfig give one line on
// stderr and a non-zero exit (2 for flags, 1 otherwise). SIGINT or SIGTERM,
// at any moment, says "stopping", stops everything, says what it stopped,
// and exits 0.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run is the whole program, in-process testable: it returns the exit code
// once ctx ends (0) or something fails (non-zero, after one line on stderr).
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	cfg, err := parseFlags(withEnvLang(args, os.Getenv), stderr)
	if errors.Is(err, errHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintln(stderr, "demo:", oneLine(err))
		return 2
	}
	d := &demo{cfg: cfg, out: &lineWriter{w: stdout}, status: &lineWriter{w: stderr},
		now: time.Now, getenv: os.Getenv, stdout: stdout, graceful: newTerminating()}
	if err := d.run(ctx); err != nil {
		d.status.printf("demo: %s", errIn(err, cfg.lang))
		return 1
	}
	return 0
}
