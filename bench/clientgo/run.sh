#!/usr/bin/env bash
# run.sh runs the client-go comparison (cmd/compare) against fakeapiserver
# and, when conformance/kube/build.sh has built them, a real kube-apiserver
# with etcd; then it writes the tables into bench/RESULTS.md between the
# "clientgo" markers (bench/run.sh keeps that section when it rewrites the
# file). The raw results stay beside it in bench/clientgo/RESULTS.jsonl.
#
# usage: bench/clientgo/run.sh [-quick] [-servers "kube fake"] [compare flags...]
#   -quick          2,000 and 10,000 pods, one run each, no 100k (a smoke run)
#   -servers LIST   which servers (default: kube when its binaries exist, and fake)
#   -report-only    rewrite the section from RESULTS.jsonl without running
#   -append         add to RESULTS.jsonl instead of starting it afresh (one server at a time)
#   compare flags   passed on: -sizes, -big, -reps, -events, -rate (a list runs each),
#                   -idle (a window without writes before the watch), -variants, -profile DIR
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
cd "$here"

servers="" quick="" report_only="" append="" args=()
while [ $# -gt 0 ]; do
	case "$1" in
	-quick) quick=1; shift ;;
	-servers) servers=$2; shift 2 ;;
	-report-only) report_only=1; shift ;;
	-append) append=1; shift ;;
	-h | --help) sed -n '2,15p' "$0"; exit 0 ;;
	*) args+=("$1"); shift ;;
	esac
done
kubebin=${ZEROKUBE_KUBE_BIN:-$HOME/.cache/zerokube/kube/v1.37.2/bin}
if [ -z "$servers" ]; then
	servers=fake
	[ -x "$kubebin/kube-apiserver" ] && [ -x "$kubebin/etcd" ] && servers="kube fake"
fi
[ -n "$quick" ] && args=(-sizes 2000,10000 -big "" -reps 1 "${args[@]}")

bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
out=$here/RESULTS.jsonl
if [ -z "$report_only" ]; then
	go build -o "$bin/" ./cmd/compare ./cmd/zkchild ./cmd/cgchild
	go build -o "$bin/fakeapiserver" github.com/zerokube/zerokube/cmd/fakeapiserver
	[ -n "$append" ] || : >"$out"
	# The commit the binaries are built from, before anything can change.
	commit="$(git -C "$root" rev-parse --short HEAD)$(git -C "$root" diff --quiet HEAD -- . ':!bench/RESULTS.*' ':!bench/clientgo/RESULTS.*' 2>/dev/null || echo ' (uncommitted changes)')"
	start=$(date +%s)
	for s in $servers; do
		"$bin/compare" -server "$s" -bin "$bin" -out "$out" "${args[@]}"
	done
	secs=$(($(date +%s) - start))
	{
		printf 'date=%q\n' "$(date -u '+%Y-%m-%d %H:%M UTC')"
		printf 'commit=%q\n' "$commit"
		printf 'go=%q\n' "$(go version | cut -d' ' -f3-)"
		printf 'cpu=%q\n' "$(grep -m1 '^model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(nproc) CPUs"
		printf 'load=%q\n' "$(cut -d' ' -f1-3 /proc/loadavg)"
		printf 'duration=%q\n' "$((secs / 60)) min $((secs % 60)) s"
		printf 'command=%q\n' "bench/clientgo/run.sh ${quick:+-quick }${args[*]}"
		} >"$here/RESULTS.env"
else
	go build -o "$bin/" ./cmd/compare
fi

# shellcheck disable=SC1091
. "$here/RESULTS.env"
section=$bin/section.md
{
	echo "<!-- clientgo:begin (written by bench/clientgo/run.sh) -->"
	echo "## Side by side with client-go (bench/clientgo)"
	echo
	echo "| | |"
	echo "|---|---|"
	echo "| date | $date |"
	echo "| commit | $commit |"
	echo "| Go | $go |"
	echo "| machine | $cpu |"
	echo "| load average | $load |"
	echo "| command | \`$command\` ($duration) |"
	echo "| raw | [clientgo/RESULTS.jsonl](clientgo/RESULTS.jsonl) |"
	echo
	echo "Each row is one informer in a child process of its own against the same server"
	echo "process: CPU is the child's (getrusage), retained is its live heap after two GCs"
	echo "over the heap before the informer started, peak RSS its VmHWM once synced; the"
	echo "watch phase writes merge patches at a fixed rate and times each from the write"
	echo "to the child's handler. client-go's rows use a SharedInformerFactory with its"
	echo "defaults but for the sync mode: \":list\" turns its WatchListClient gate off (a paged LIST),"
	echo "\":stream\" on (a streaming list, v0.37's default); the note says what each child did."
	echo "zerokube's use the informer's defaults (paged LIST, protobuf for built-in kinds,"
	echo "managedFields dropped, equal label and annotation maps shared) but for its options:"
	echo "\":stream\" a streaming list, \":json\" Transport.JSON; a \":sync\" row processes on the reflector's"
	echo "goroutine and calls its handler there (Options.InlineProcessing,"
	echo "HandlerOptions.Synchronous; see cmd/zkchild for every option word)."
	echo "cg-json asks for JSON and cg-proto for protobuf; cg-default rows left the content type"
	echo "unset, and client-go's typed pod client then asks for protobuf (they were published as"
	echo "cg-json, and cg-default-strip as cg-json-strip, before commit 5467085)."
	echo
	"$bin/compare" -report "$out" -report-out -
	echo "<!-- clientgo:end -->"
} >"$section"
results=$root/bench/RESULTS.md
if grep -q '^<!-- clientgo:begin' "$results"; then
	awk -v f="$section" '
		/^<!-- clientgo:begin/ { while ((getline l < f) > 0) print l; skip = 1; next }
		/^<!-- clientgo:end/ { skip = 0; next }
		!skip' "$results" >"$bin/results.md"
	cp "$bin/results.md" "$results"
else
	{ echo; cat "$section"; } >>"$results"
fi
echo "run.sh: wrote the comparison into $results" >&2
