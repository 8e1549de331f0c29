package main

import (
	"context"
	"errors"
)

func startKube(ctx context.Context, c config) (*server, error) {
	return nil, errors.New("compare: -server kube needs conformance/kubetest")
}
