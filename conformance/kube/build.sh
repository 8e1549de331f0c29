#!/usr/bin/env bash
# build.sh builds etcd and kube-apiserver from the Go module proxy into a cache
# directory outside the repository, for the conformance suite (conformance/).
#
#   bash conformance/kube/build.sh            # builds v1.37.2 (about 10-25 min cold)
#   KUBE_VERSION=v1.37.2 ETCD_VERSION=v3.7.0 bash conformance/kube/build.sh
#
# Why a throwaway module: the root module must never depend on anything under
# k8s.io/ (CI checks `go list -deps`), so the build happens in a temporary
# module that requires k8s.io/kubernetes and is deleted afterwards.
# k8s.io/kubernetes points its staging modules (k8s.io/api, k8s.io/apiserver,
# ...) at ./staging with `replace` directives, which only apply inside its own
# repository; from outside, each must be replaced by its published v0.X.Y tag.
#
# Idempotent: a binary that already exists is not rebuilt. The machine is
# shared, so the build runs under nice with few parallel compiles
# (KUBE_BUILD_P, default 2).
set -euo pipefail

KUBE_VERSION="${KUBE_VERSION:-v1.37.2}"
ETCD_VERSION="${ETCD_VERSION:-v3.7.0}"
CACHE="${ZEROKUBE_KUBE_CACHE:-${HOME}/.cache/zerokube/kube}"
OUT="${CACHE}/${KUBE_VERSION}/bin"
P="${KUBE_BUILD_P:-2}"
mkdir -p "${OUT}"

gobuild() { # gobuild DIR OUTPUT PACKAGE
	(cd "$1" && GOFLAGS="-p=${P} -buildvcs=false -mod=mod" CGO_ENABLED=0 \
		nice -n 10 go build -trimpath -ldflags='-s -w' -o "$2" "$3")
}

build_etcd() {
	if [[ -x "${OUT}/etcd" ]]; then echo "build.sh: ${OUT}/etcd present, skipped"; return; fi
	local dir; dir="$(mktemp -d)"
	echo "build.sh: building etcd ${ETCD_VERSION} in ${dir}"
	(cd "${dir}" && go mod init zerokube.local/etcdbuild >/dev/null 2>&1 &&
		go get "go.etcd.io/etcd/server/v3@${ETCD_VERSION}")
	gobuild "${dir}" "${OUT}/etcd.tmp" go.etcd.io/etcd/server/v3
	mv "${OUT}/etcd.tmp" "${OUT}/etcd"
	rm -rf "${dir}"
}

build_apiserver() {
	if [[ -x "${OUT}/kube-apiserver" ]]; then echo "build.sh: ${OUT}/kube-apiserver present, skipped"; return; fi
	local dir; dir="$(mktemp -d)"
	echo "build.sh: building kube-apiserver ${KUBE_VERSION} in ${dir}"
	local info; info="$(go mod download -json "k8s.io/kubernetes@${KUBE_VERSION}")"
	local kdir; kdir="$(printf '%s' "${info}" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')"
	local staging="v0.${KUBE_VERSION#v1.}"
	{
		echo "module zerokube.local/kubebuild"
		echo
		echo "go $(go env GOVERSION | sed 's/^go\([0-9]*\.[0-9]*\).*/\1/')"
		echo
		echo "replace ("
		# Every `k8s.io/X => ./staging/...` line of kubernetes' go.mod becomes X => X vN.
		sed -n 's#^[[:space:]]*\(k8s\.io/[^ ]*\) => \./staging/.*#\t\1 => \1 '"${staging}"'#p' "${kdir}/go.mod"
		echo ")"
	} >"${dir}/go.mod"
	(cd "${dir}" && go get "k8s.io/kubernetes/cmd/kube-apiserver@${KUBE_VERSION}")
	gobuild "${dir}" "${OUT}/kube-apiserver.tmp" k8s.io/kubernetes/cmd/kube-apiserver
	mv "${OUT}/kube-apiserver.tmp" "${OUT}/kube-apiserver"
	rm -rf "${dir}"
}

build_etcd
build_apiserver
"${OUT}/etcd" --version | head -1
"${OUT}/kube-apiserver" --version
echo "build.sh: done: ${OUT}"
