// Command floor is the footprint benchmark's floor: what any Go agent of
// a node's pods links before an informer, the Go runtime, net/http with TLS
// and HTTP/2, log/slog and the JSON decoder zerokube uses
// (go-json-experiment/json). It lists its node's pods once, by field
// selector, as JSON, prints the count, and waits, with no watch, no cache
// and no retry: bench/agent/zerokube less everything that makes it an
// informer.
//
//	floor -node node-0001 -server URL -token-file FILE -ca-file FILE
package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/go-json-experiment/json"
)

// podList is what the floor keeps of a pod list: the pods' names and
// phases.
type podList struct {
	Items []struct {
		Metadata struct {
			Name string `json:"name"`
		} `json:"metadata"`
		Status struct {
			Phase string `json:"phase"`
		} `json:"status"`
	} `json:"items"`
}

func main() {
	server := flag.String("server", "", "the API server's URL")
	tokenFile := flag.String("token-file", "", "a file holding the bearer token")
	caFile := flag.String("ca-file", "", "the server's CA certificates (PEM)")
	node := flag.String("node", os.Getenv("NODE_NAME"), "the node whose pods to list")
	flag.Parse()
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	start := time.Now()
	n, err := list(ctx, *server, *tokenFile, *caFile, *node)
	if err != nil {
		log.Error("floor: list", "err", err)
		os.Exit(1)
	}
	fmt.Printf("synced in %s\n", time.Since(start).Round(time.Millisecond))
	fmt.Printf("%d pods on %s\n", n, *node)
	<-ctx.Done()
}

// list GETs the node's pods and returns how many there are.
func list(ctx context.Context, server, tokenFile, caFile, node string) (int, error) {
	if server == "" || node == "" {
		return 0, errors.New("-server and -node are required")
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	if caFile != "" {
		pem, err := os.ReadFile(caFile)
		if err != nil {
			return 0, err
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return 0, fmt.Errorf("%s holds no certificate", caFile)
		}
		tr.TLSClientConfig = &tls.Config{RootCAs: pool}
	}
	q := url.Values{"fieldSelector": {"spec.nodeName=" + node}}
	req, err := http.NewRequestWithContext(ctx, "GET", strings.TrimSuffix(server, "/")+"/api/v1/pods?"+q.Encode(), nil)
	if err != nil {
		return 0, err
	}
	if tokenFile != "" {
		tok, err := os.ReadFile(tokenFile)
		if err != nil {
			return 0, err
		}
		req.Header.Set("Authorization", "Bearer "+strings.TrimSpace(string(tok)))
	}
	resp, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("GET pods: %s", resp.Status)
	}
	var l podList
	if err := json.UnmarshalRead(resp.Body, &l); err != nil {
		return 0, fmt.Errorf("decode pods: %w", err)
	}
	return len(l.Items), nil
}
