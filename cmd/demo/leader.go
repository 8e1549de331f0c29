package main

import (
	"context"
	"crypto/rand"
	"fmt"
	"log/slog"
	"os"

	"github.com/zerokube/zerokube/apiclient"
	"github.com/zerokube/zerokube/leaderelection"
)

// leaseName is the Lease the demos on one server campaign for
// (--leader-elect).
const leaseName = "zerokube-demo"

// whileLeading runs work only while this demo holds the Lease: of the
// demos started on one server, the leader prints the article's lines and
// the others wait and say who leads. The work (the informer) stops before
// the Lease is released, so when the leader is interrupted another takes
// over at its next attempt and never while the first still prints.
func (d *demo) whileLeading(ctx context.Context, c *apiclient.Client, work func(context.Context) error) error {
	ns := d.cfg.namespace
	if ns == "" || d.cfg.resource.cluster {
		ns = "default"
	}
	id := identity()
	// A work that fails (the first sync) gives the Lease up and ends the
	// demo with its error, rather than leading with nothing to show.
	ctx, giveUp := context.WithCancel(ctx)
	defer giveUp()
	var werr error
	el, err := leaderelection.New(leaderelection.Config{
		Client: c, Namespace: ns, Name: leaseName, Identity: id, Logger: slog.New(d.logHandler()),
		OnStartedLeading: func(lctx context.Context) {
			d.tell(msg{en: "%s leads (lease %s/%s)", zh: "%s 成为 leader（Lease %s/%s）"}, id, ns, leaseName)
			mark := len(d.stops) // run waits in el.Run: no one else touches d.stops now
			if werr = work(lctx); werr != nil {
				giveUp()
			}
			d.unwindTo(mark, werr == nil)
		},
		OnStoppedLeading: func() {
			if ctx.Err() != nil && werr == nil {
				d.tell(msg{en: "%s released lease %s/%s", zh: "%s 释放了 Lease %s/%s"}, id, ns, leaseName)
			}
		},
		OnNewLeader: func(leader string) {
			if leader != id {
				d.tell(msg{en: "%s leads; %s waits", zh: "%s 是 leader；%s 等待中"}, leader, id)
			}
		},
	})
	if err != nil {
		return err
	}
	d.tell(msg{en: "%s campaigns for lease %s/%s", zh: "%s 开始竞选 Lease %s/%s"}, id, ns, leaseName)
	if err := el.Run(ctx); err != nil {
		return err // leadership lost: the error says why
	}
	return werr
}

// identity names this demo in the Lease: host name and a random suffix,
// unique even for two demos in one process.
func identity() string {
	host, err := os.Hostname()
	if err != nil {
		host = "demo"
	}
	b := make([]byte, 3)
	_, _ = rand.Read(b)
	return fmt.Sprintf("%s_%x", host, b)
}
