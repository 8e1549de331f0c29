#!/usr/bin/env bash
# run.sh builds the fleet benchmark (cmd/fleet, client-go's child
# bench/clientgo/cmd/cgfleet), the two minimal agents and the floor agent
# (bench/agent/floor), all with -ldflags='-s -w' (zerokube's with -tags
# zerokube_stdgzip: see internal/gunzip), runs it against each server, and
# writes the tables into fleet/RESULTS.md (raw lines: fleet/RESULTS.jsonl,
# what ran: fleet/RESULTS.env). The committed bench/fleet/RESULTS.* are
# rewritten only with -write: by default they go under
# ${ZEROKUBE_RESULTS:-$TMPDIR/zerokube-bench}/fleet.
#
# usage: bench/fleet/run.sh [-servers "fake kube"] [-write] [-append] [-report-only] [-dry-run] [fleet flags...]
#   -servers LIST   default: kube when conformance/kube/build.sh's binaries exist, and fake
#   -write          write the committed results in bench/fleet/
#   -append         add to RESULTS.jsonl instead of starting it afresh
#   -report-only    rewrite RESULTS.md from RESULTS.jsonl
#   -dry-run        print the files it would write, and stop
#   fleet flags     passed on: -agents, -pods-per-node, -replicas, -shapes, -modes,
#                   -churn-events, -churn-rate, -quiet, -tail, -idle,
#                   -footprint-idle, -footprint-reps, -footprint-only, -no-footprint
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
cd "$root"

results=${ZEROKUBE_RESULTS:-${TMPDIR:-/tmp}/zerokube-bench}/fleet
servers="" append="" report_only="" footprint=1 dry="" args=()
while [ $# -gt 0 ]; do
	case "$1" in
	-servers) servers=$2; shift 2 ;;
	-append) append=1; shift ;;
	-report-only) report_only=1; shift ;;
	-no-footprint) footprint=""; shift ;;
	-write) results=$here; shift ;;
	-dry-run) dry=1; shift ;;
	-h | --help) sed -n '2,18p' "$here/run.sh"; exit 0 ;;
	*) args+=("$1"); shift ;;
	esac
done
kubebin=${ZEROKUBE_KUBE_BIN:-$HOME/.cache/zerokube/kube/v1.37.2/bin}
if [ -z "$servers" ]; then
	servers=fake
	[ -x "$kubebin/kube-apiserver" ] && [ -x "$kubebin/etcd" ] && servers="kube fake"
fi

out=$results/RESULTS.jsonl env=$results/RESULTS.env md=$results/RESULTS.md
. "$root/bench/results.sh"
plan_writes "$out" "$env" "$md" "the committed RESULTS.md"
mkdir -p "$results"

bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
go build -o "$bin/fleet" ./bench/fleet/cmd/fleet
if [ -z "$report_only" ]; then
	go build -tags zerokube_stdgzip -ldflags='-s -w' -o "$bin/zerokube-agent" ./bench/agent/zerokube
	go build -ldflags='-s -w' -o "$bin/floor-agent" ./bench/agent/floor
	(cd bench/clientgo && go build -o "$bin/cgfleet" ./cmd/cgfleet && go build -ldflags='-s -w' -o "$bin/client-go-agent" ./cmd/cgagent)
	fp=()
	[ -n "$footprint" ] && fp=(-footprint "zerokube=$bin/zerokube-agent,client-go=$bin/client-go-agent,floor=$bin/floor-agent")
	prev=""
	if [ -n "$append" ] && [ -f "$env" ]; then
		prev=$(. "$env" && printf '%s (%s, %s, at %s, load %s); ' "$command" "$date" "$duration" "$commit" "$load")
	fi
	[ -n "$append" ] || : >"$out"
	commit="$(git rev-parse --short HEAD)$(git diff --quiet HEAD -- . ':!*.md' ':!*.jsonl' ':!*.env' 2>/dev/null || echo ' (uncommitted changes)')"
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
		} >"$env"
	}
	write_env "stopped before its end" "$load0 at the start"
	for s in $servers; do
		"$bin/fleet" -server "$s" -cgfleet "$bin/cgfleet" -out "$out" "${fp[@]}" "${args[@]}"
	done
	secs=$(($(date +%s) - start))
	write_env "$((secs / 60)) min $((secs % 60)) s" "$load0 at the start, $(cut -d' ' -f1-3 /proc/loadavg) at the end"
fi

# shellcheck disable=SC1091
. "$env"
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
} >"$md"
echo "wrote $md (raw: $out)"
