// Package kubeconfig reads kubeconfig files into an apiclient.Config:
// LoadFile reads one file's context, and Load finds a config the way kubectl
// does (an explicit path, KUBECONFIG, ~/.kube/config, then the in-cluster
// config of apiclient.InCluster).
//
// It sits beside apiclient, before the data path: it only builds the Config
// that apiclient.New takes. It is a package of its own because kubeconfig
// files are YAML, and the YAML parser is about half a megabyte of binary
// (bench/README.md, "The agent's footprint"): an agent that runs in a pod
// needs apiclient.InCluster only and does not link it.
//
// What it reads: clusters (server, CA file or data, tls-server-name,
// insecure-skip-tls-verify), users (token, tokenFile, client certificate and
// key as files or data, exec credential plugins) and contexts (cluster,
// user, namespace), merged across the KUBECONFIG list as kubectl merges
// them (the first file to define a name wins). Relative paths are anchored
// at the file that names them. Basic authentication and auth-provider
// entries are refused with an error naming the field. Every error is an
// *Error naming the file and the field.
package kubeconfig
