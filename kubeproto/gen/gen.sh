#!/usr/bin/env bash
# gen.sh regenerates kubeproto/zz_schema.go from k8s.io/api.
#
#   bash kubeproto/gen/gen.sh              # writes kubeproto/zz_schema.go
#   bash kubeproto/gen/gen.sh -o FILE      # writes FILE instead (the freshness check)
#   KUBE_API_VERSION=v0.37.2 bash kubeproto/gen/gen.sh
#
# Why a throwaway module: the root module must never depend on anything under
# k8s.io/ (CI checks `go list -deps`), so gen/main.go (build tag `ignore`) is
# copied into a temporary module that requires k8s.io/api and client-go, run
# there, and the directory deleted. Offline when the module cache already
# holds those versions (conformance/kube/build.sh fills it); set
# GOPROXY=off to forbid the network. Exit status 3: the modules (or their
# checksums) could not be fetched.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
out="${here}/../zz_schema.go"
if [[ "${1:-}" == "-o" ]]; then out="$(realpath -m "$2")"; fi
V="${KUBE_API_VERSION:-v0.37.2}"

dir="$(mktemp -d)"
trap 'rm -rf "${dir}"' EXIT
cp "${here}/main.go" "${dir}/main.go"
sed -i '1,/^$/{/^\/\/go:build ignore$/d}' "${dir}/main.go"
cd "${dir}"
{
	echo "module zerokube.local/kubeprotogen"
	echo
	echo "go $(go env GOVERSION | sed 's/^go\([0-9]*\.[0-9]*\).*/\1/')"
} >go.mod
export GOFLAGS="-mod=mod -buildvcs=false"
# Fetching is one step and generating another, so that a caller (the
# freshness test) tells "cannot fetch" (exit 3: offline, a module or its
# checksum missing) from "the generator failed" (any other status).
cannot_fetch() {
	echo "gen.sh: cannot fetch the generator's modules (k8s.io/api, apimachinery and client-go ${V} and their dependencies, with their checksums)" >&2
	exit 3
}
go get "k8s.io/api@${V}" "k8s.io/apimachinery@${V}" "k8s.io/client-go@${V}" >/dev/null 2>&1 ||
	go get "k8s.io/api@${V}" "k8s.io/apimachinery@${V}" "k8s.io/client-go@${V}" || cannot_fetch
# Every module the build needs, downloaded and in go.sum: go run then
# fetches nothing.
go list -deps . >/dev/null || cannot_fetch
nice go run . -o "${dir}/zz_schema.go" -version "${V}"
cp "${dir}/zz_schema.go" "${out}"
