package fleet

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/zerokube/zerokube/bench/internal/poll"
	"github.com/zerokube/zerokube/shard"
)

// The shapes of a fleet.
const (
	// ShapePerNode: agent i lists and watches the pods of NodeName(i), by
	// field selector spec.nodeName, as a DaemonSet's agent does.
	ShapePerNode = "pernode"
	// ShapeShard: agent i of N keeps shard i of every pod (shard.Of(i, N),
	// sent as shardSelector), as N replicas of a controller sharding one
	// resource do.
	ShapeShard = "shard"
)

// ChildConfig is what the driver tells a child on its command line.
type ChildConfig struct {
	Kubeconfig string
	Shape      string
	Agents     int
	// Opts are the mode's options, comma-separated words: "snap"
	// (zerokube: snapshots in SnapDir), "stream" (a streaming list),
	// "list" (client-go: a LIST, its WatchListClient gate off).
	Opts    string
	SnapDir string
}

// Has reports whether the options hold word.
func (c ChildConfig) Has(word string) bool {
	for w := range strings.SplitSeq(c.Opts, ",") {
		if w == word {
			return true
		}
	}
	return false
}

// Args is c as a command line for ParseChildConfig.
func (c ChildConfig) Args() []string {
	return []string{"-kubeconfig", c.Kubeconfig, "-shape", c.Shape, "-agents", strconv.Itoa(c.Agents),
		"-opts", c.Opts, "-snapdir", c.SnapDir}
}

// ParseChildConfig reads a child's command line.
func ParseChildConfig(args []string) (ChildConfig, error) {
	var c ChildConfig
	fs := flag.NewFlagSet("fleet child", flag.ContinueOnError)
	fs.StringVar(&c.Kubeconfig, "kubeconfig", "", "kubeconfig of the server")
	fs.StringVar(&c.Shape, "shape", ShapePerNode, "pernode or shard")
	fs.IntVar(&c.Agents, "agents", 1, "agents")
	fs.StringVar(&c.Opts, "opts", "", "mode options")
	fs.StringVar(&c.SnapDir, "snapdir", "", "snapshot directory (zerokube, opts snap)")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if c.Shape != ShapePerNode && c.Shape != ShapeShard {
		return c, fmt.Errorf("fleet: unknown shape %q", c.Shape)
	}
	if c.Agents < 1 {
		return c, fmt.Errorf("fleet: %d agents", c.Agents)
	}
	return c, nil
}

// FieldSelector is agent i's field selector: its node's pods in the
// per-node shape, "" in the sharded one.
func (c ChildConfig) FieldSelector(i int) string {
	if c.Shape == ShapePerNode {
		return "spec.nodeName=" + NodeName(i)
	}
	return ""
}

// Shard is agent i's shard in the sharded shape (the zero Selector, every
// object, in the per-node one).
func (c ChildConfig) Shard(i int) (shard.Selector, error) {
	if c.Shape != ShapeShard {
		return shard.Selector{}, nil
	}
	return shard.Of(i, c.Agents)
}

// Agents is one mode's fleet inside a child process.
type Agents interface {
	// Start starts every agent at once, each on a connection of its own,
	// and returns once every one has synced, with the objects they hold
	// in all.
	Start(ctx context.Context) (objects int, err error)
	// Stop stops every agent and returns once each has (a zerokube agent
	// with snapshots has saved its snapshot), with its connections closed.
	Stop() error
	// Updates is how many update events the agents' handlers have seen.
	Updates() int64
	// Note says what the agents did: "list" or "watch-list" (a streaming
	// list), and the wire, e.g. "list, protobuf".
	Note() string
}

// The child's commands, one a line on its stdin, and its replies, one
// JSON object a line on its stdout.
const (
	cmdStart   = "start"   // start every agent: reply "synced"
	cmdRestart = "restart" // stop every agent, start them again: reply "synced"
	cmdUpdates = "updates" // "updates K": reply "updates" once K update events were seen in all
)

// reply is one line of a child's stdout.
type reply struct {
	Event   string  `json:"event"` // "synced", "updates", "error"
	Objects int     `json:"objects,omitempty"`
	Seconds float64 `json:"s,omitempty"` // how long the command took
	Note    string  `json:"note,omitempty"`
	Err     string  `json:"err,omitempty"`
}

// ServeChild runs a child: it reads commands from in until it closes and
// answers each on out. Each command's deadline is timeout.
func ServeChild(ctx context.Context, in io.Reader, out io.Writer, a Agents, timeout time.Duration) error {
	enc := json.NewEncoder(out)
	sc := bufio.NewScanner(in)
	started := false
	for sc.Scan() {
		cmd, arg, _ := strings.Cut(strings.TrimSpace(sc.Text()), " ")
		t := time.Now()
		cctx, cancel := context.WithTimeout(ctx, timeout)
		r, err := serveOne(cctx, a, cmd, arg, &started)
		cancel()
		if err != nil {
			r = reply{Event: "error", Err: err.Error()}
		}
		r.Seconds = time.Since(t).Seconds()
		if err := enc.Encode(r); err != nil {
			return err
		}
	}
	if started {
		return errors.Join(sc.Err(), a.Stop())
	}
	return sc.Err()
}

func serveOne(ctx context.Context, a Agents, cmd, arg string, started *bool) (reply, error) {
	switch cmd {
	case cmdRestart:
		if !*started {
			return reply{}, errors.New("fleet: restart before start")
		}
		if err := a.Stop(); err != nil {
			return reply{}, err
		}
		*started = false
		fallthrough
	case cmdStart:
		if *started {
			return reply{}, errors.New("fleet: started twice")
		}
		n, err := a.Start(ctx)
		*started = err == nil
		return reply{Event: "synced", Objects: n, Note: a.Note()}, err
	case cmdUpdates:
		k, err := strconv.ParseInt(arg, 10, 64)
		if err != nil {
			return reply{}, fmt.Errorf("fleet: updates %q: %w", arg, err)
		}
		if err := poll.Await(ctx, func() bool { return a.Updates() >= k }); err != nil {
			return reply{}, fmt.Errorf("fleet: %d updates of %d seen: %w", a.Updates(), k, err)
		}
		return reply{Event: "updates"}, nil
	}
	return reply{}, fmt.Errorf("fleet: unknown command %q", cmd)
}
