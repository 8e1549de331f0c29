#!/usr/bin/env bash
# run.sh builds the fleet benchmark (cmd/fleet, client-go's child
# bench/clientgo/cmd/cgfleet), the two minimal agents and the floor agent
# (bench/agent/floor), all with -ldflags='-s -w' (zerokube's with -tags
# zerokube_stdgzip: see internal/gunzip), runs it against each server, and writes the tables
# into bench/fleet/RESULTS.md (raw lines: bench/fleet/RESULTS.jsonl).
#
# usage: bench/fleet/run.sh [-servers "fake kube"] [-append] [-report-only] [fleet flags...]
#   -servers LIST   default: kube when conformance/kube/build.sh's binaries exist, and fake
#   -append         add to RESULTS.jsonl instead of starting it afresh
#   -report-only    rewrite RESULTS.md from RESULTS.jsonl
#   fleet flags     passed on: -agents, -pods-per-node, -replicas, -shapes, -modes,
#                   -churn-events, -churn-rate, -quiet, -tail, -idle,
#                   -footprint-idle, -footprint-reps, -footprint-only, -no-footprint
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
cd "$root"

servers="" append="" report_only="" footprint=1 args=()
while [ $# -gt 0 ]; do
	case "$1" in
	-servers) servers=$2; shift 2 ;;
	-append) append=1; shift ;;
	-report-only) report_only=1; shift ;;
	-no-footprint) footprint=""; shift ;;
	-h | --help) sed -n '2,14p' "$0"; exit 0 ;;
	*) args+=("$1"); shift ;;
	esac
done
kubebin=${ZEROKUBE_KUBE_BIN:-$HOME/.cache/zerokube/kube/v1.37.2/bin}
if [ -z "$servers" ]; then
	servers=fake
	[ -x "$kubebin/kube-apiserver" ] && [ -x "$kubebin/etcd" ] && servers="kube fake"
fi

bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
out=$here/RESULTS.jsonl
go build -o "$bin/fleet" ./bench/fleet/cmd/fleet
if [ -z "$report_only" ]; then
	go build -tags zerokube_stdgzip -ldflags='-s -w' -o "$bin/zerokube-agent" ./bench/agent/zerokube
	go build -ldflags='-s -w' -o "$bin/floor-agent" ./bench/agent/floor
	(cd bench/clientgo && go build -o "$bin/cgfleet" ./cmd/cgfleet && go build -ldflags='-s -w' -o "$bin/client-go-agent" ./cmd/cgagent)
	fp=()
	[ -n "$footprint" ] && fp=(-footprint "zerokube=$bin/zerokube-agent,client-go=$bin/client-go-agent,floor=$bin/floor-agent")
	prev=""
	if [ -n "$append" ] && [ -f "$here/RESULTS.env" ]; then
		prev=$(. "$here/RESULTS.env" && printf '%s (%s, load %s); ' "$command" "$duration" "$load")
	fi
	[ -n "$append" ] || : >"$out"
	commit="$(git rev-parse --short HEAD)$(git diff --quiet HEAD -- . ':!bench/fleet/RESULTS.*' 2>/dev/null || echo ' (uncommitted changes)')"
	start=$(date +%s)
	load0=$(cut -d' ' -f1-3 /proc/loadavg)
	nofp=""
	[ -n "$footprint" ] || nofp="-no-footprint "
	# write_env DURATION LOAD writes RESULTS.env; written first too, so that a run
	# stopped half way still says what produced its lines.
	write_env() {
		{
			printf 'date=%q\n' "$(date -u '+%Y-%m-%d %H:%M UTC')"
			printf 'commit=%q\n' "$commit"
			printf 'go=%q\n' "$(go version | cut -d' ' -f3-)"
			printf 'cpu=%q\n' "$(grep -m1 '^model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(nproc) CPUs"
			printf 'load=%q\n' "$2"
			printf 'duration=%q\n' "$1"
			printf 'command=%q\n' "${prev}bench/fleet/run.sh -servers \"$servers\" ${append:+-append }$nofp${args[*]}"
		} >"$here/RESULTS.env"
	}
	write_env "stopped before its end" "$load0 at the start"
	for s in $servers; do
		"$bin/fleet" -server "$s" -cgfleet "$bin/cgfleet" -out "$out" "${fp[@]}" "${args[@]}"
	done
	secs=$(($(date +%s) - start))
	write_env "$((secs / 60)) min $((secs % 60)) s" "$load0 at the start, $(cut -d' ' -f1-3 /proc/loadavg) at the end"
fi

# shellcheck disable=SC1091
. "$here/RESULTS.env"
{
	echo "# Fleet benchmark results (written by bench/fleet/run.sh)"
	echo
	echo "| | |"
	echo "|---|---|"
	echo "| date | $date |"
	echo "| commit | $commit |"
	echo "| Go | $go |"
	echo "| machine | $cpu |"
	echo "| load average | $load |"
	echo "| command | \`$command\` ($duration) |"
	echo "| raw | [RESULTS.jsonl](RESULTS.jsonl) |"
	echo
	"$bin/fleet" -report "$out"
} >"$here/RESULTS.md"
echo "wrote $here/RESULTS.md"
