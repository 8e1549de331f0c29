#!/usr/bin/env bash
# run.sh runs the client-go comparison (cmd/compare) against fakeapiserver
# and, when conformance/kube/build.sh has built them, a real kube-apiserver
# with etcd; then it writes the tables into a RESULTS.md between the
# "clientgo" markers (bench/run.sh keeps that section when it rewrites the
# file), the raw results beside it in clientgo/RESULTS.jsonl and what ran
# in clientgo/RESULTS.env. The committed bench/RESULTS.md and
# bench/clientgo/RESULTS.* are rewritten only with -write: by default
# everything goes under ${ZEROKUBE_RESULTS:-$TMPDIR/zerokube-bench}, laid
# out as bench/ is (its RESULTS.md starts as a copy of the committed one).
#
# usage: bench/clientgo/run.sh [-quick] [-servers "kube fake"] [-write] [-dry-run] [compare flags...]
#   -quick          2,000 and 10,000 pods, one run each, no 100k (a smoke run)
#   -servers LIST   which servers (default: kube when its binaries exist, and fake)
#   -write          write the committed results in bench/ and bench/clientgo/
#   -report-only    rewrite the section from RESULTS.jsonl without running
#   -append         add to RESULTS.jsonl instead of starting it afresh (one server at a time)
#   -dry-run        print the files it would write, and stop
#   compare flags   passed on: -sizes, -big, -reps, -events, -rate (a list runs each),
#                   -idle (a window without writes before the watch), -variants, -profile DIR
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
cd "$here"

results=${ZEROKUBE_RESULTS:-${TMPDIR:-/tmp}/zerokube-bench}
servers="" quick="" report_only="" append="" dry="" args=()
while [ $# -gt 0 ]; do
	case "$1" in
	-quick) quick=1; shift ;;
	-servers) servers=$2; shift 2 ;;
	-report-only) report_only=1; shift ;;
	-append) append=1; shift ;;
	-write) results=$root/bench; shift ;;
	-dry-run) dry=1; shift ;;
	-h | --help) sed -n '2,20p' "$here/run.sh"; exit 0 ;;
	*) args+=("$1"); shift ;;
	esac
done
kubebin=${ZEROKUBE_KUBE_BIN:-$HOME/.cache/zerokube/kube/v1.37.2/bin}
if [ -z "$servers" ]; then
	servers=fake
	[ -x "$kubebin/kube-apiserver" ] && [ -x "$kubebin/etcd" ] && servers="kube fake"
fi
[ -n "$quick" ] && args=(-sizes 2000,10000 -big "" -reps 1 "${args[@]}")

out=$results/clientgo/RESULTS.jsonl env=$results/clientgo/RESULTS.env
results_md=$results/RESULTS.md
. "$root/bench/results.sh"
plan_writes "$out" "$env" "$results_md" "the committed section"
mkdir -p "$results/clientgo"
[ -f "$results_md" ] || cp "$root/bench/RESULTS.md" "$results_md"

bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
if [ -z "$report_only" ]; then
	go build -o "$bin/" ./cmd/compare ./cmd/zkchild ./cmd/cgchild
	go build -o "$bin/fakeapiserver" github.com/zerokube/zerokube/cmd/fakeapiserver
	# An appended run keeps the commands before it in the record.
	prev=""
	if [ -n "$append" ] && [ -f "$env" ]; then
		prev=$(. "$env" && printf '%s (%s, %s, at %s, load %s); ' "$command" "$date" "$duration" "$commit" "$load")
	fi
	[ -n "$append" ] || : >"$out"
	# The commit the binaries are built from, before anything can change.
	commit="$(git -C "$root" rev-parse --short HEAD)$(git -C "$root" diff --quiet HEAD -- . ':!*.md' ':!*.jsonl' ':!*.env' 2>/dev/null || echo ' (uncommitted changes)')"
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
		printf 'command=%q\n' "${prev}bench/clientgo/run.sh -servers \"$servers\" ${append:+-append }${quick:+-quick }${args[*]}"
		} >"$env"
else
	go build -o "$bin/" ./cmd/compare
fi

# shellcheck disable=SC1091
. "$env"
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
if grep -q '^<!-- clientgo:begin' "$results_md"; then
	awk -v f="$section" '
		/^<!-- clientgo:begin/ { while ((getline l < f) > 0) print l; skip = 1; next }
		/^<!-- clientgo:end/ { skip = 0; next }
		!skip' "$results_md" >"$bin/results.md"
	cp "$bin/results.md" "$results_md"
else
	{ echo; cat "$section"; } >>"$results_md"
fi
echo "run.sh: wrote the comparison into $results_md (raw: $out)" >&2
