package main

import (
	"context"
	"os"
	"path/filepath"
	"time"

	"github.com/zerokube/zerokube/bench/fleet"
	"github.com/zerokube/zerokube/conformance/kubetest"
)

// startKube runs etcd and kube-apiserver from conformance/kube/build.sh's
// binaries (conformance/kubetest) and writes a kubeconfig for the
// children.
func startKube(ctx context.Context, _ config) (*server, error) {
	bins, err := kubetest.Find()
	if err != nil {
		return nil, err
	}
	// kube-apiserver's own compaction interval: the conformance suite's
	// 5 s would expire a child's resourceVersion mid-run. 100,000 pods of
	// the workload take about a gigabyte of etcd's file before its free
	// pages and the watch phase's revisions: etcd's 2 GiB default quota is
	// too close, so 8 GiB (the size etcd's docs suggest as a maximum).
	srv, err := kubetest.Start(ctx, bins, kubetest.Options{
		CompactionInterval: 5 * time.Minute, ReadyTimeout: 5 * time.Minute,
		EtcdQuotaBytes: 8 << 30,
	})
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "zerokube-compare-")
	if err != nil {
		srv.Close()
		return nil, err
	}
	stop := func() { srv.Close(); os.RemoveAll(dir) }
	kc := filepath.Join(dir, "kubeconfig")
	if err := writeKubeconfig(kc, srv.URL(), srv.Token(), srv.CAData()); err != nil {
		stop()
		return nil, err
	}
	return fleet.NewServer("kube-apiserver "+kubetest.Version, kc, true, stop, srv.APIServerPID(), srv.EtcdPID())
}
