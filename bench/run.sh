#!/usr/bin/env bash
# run.sh runs zerokube's benchmarks (the end-to-end suite in bench/ and the
# component benchmarks beside their packages) and writes a RESULTS.md: the
# machine, the targets of issue #8 checked against the medians, a table per
# package, and benchstat's summary (with confidence intervals) when
# benchstat can be installed. The committed bench/RESULTS.md is rewritten
# only with -write: by default the results go under
# ${ZEROKUBE_RESULTS:-$TMPDIR/zerokube-bench}, laid out as bench/ is.
#
# usage: bench/run.sh [-count N] [-benchtime D] [-bench REGEXP] [-full] [-write | -out FILE] [-profile DIR] [-from RAW] [-dry-run] [packages...]
#   -count N      repetitions of each benchmark (default 5)
#   -benchtime D  go test -benchtime (default 1s)
#   -full         also the 50,000-pod variants (ZEROKUBE_BENCH_FULL=1); with
#                 -count 3 ./bench/ about 11 minutes on 2 shared CPUs
#   -write        write the committed bench/RESULTS.md (and RESULTS.txt)
#   -out FILE     the markdown to write (default RESULTS.md in the results
#                 directory); the raw go test output goes beside it as .txt
#   -profile DIR  also write CPU and heap profiles of the bench package to DIR
#   -from RAW     do not run anything: summarize an earlier raw output
#   -dry-run      print the files it would write, and stop
#   packages      default: every package of the module
set -euo pipefail
cd "$(dirname "$0")/.."

results=${ZEROKUBE_RESULTS:-${TMPDIR:-/tmp}/zerokube-bench}
count=5 benchtime=1s bench=. out="" profile="" from="" dry=""
pkgs=()
while [ $# -gt 0 ]; do
	case "$1" in
	-count) count=$2; shift 2 ;;
	-benchtime) benchtime=$2; shift 2 ;;
	-bench) bench=$2; shift 2 ;;
	-full) export ZEROKUBE_BENCH_FULL=1; shift ;;
	-write) results=$PWD/bench; shift ;;
	-out) out=$2; shift 2 ;;
	-profile) profile=$2; shift 2 ;;
	-from) from=$2; shift 2 ;;
	-dry-run) dry=1; shift ;;
	-h | --help) sed -n '2,21p' "$0"; exit 0 ;;
	*) pkgs+=("$1"); shift ;;
	esac
done
[ ${#pkgs[@]} -eq 0 ] && pkgs=(./...)
[ -n "$out" ] || out=$results/RESULTS.md
raw=${out%.md}.txt
if [ -n "$dry" ]; then
	printf 'would write: %s\n' "$out" "$raw"
	exit 0
fi
mkdir -p "$(dirname "$out")"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmdline="go test -run '^\$' -bench '$bench' -benchtime $benchtime -count $count ${pkgs[*]}${ZEROKUBE_BENCH_FULL:+ (ZEROKUBE_BENCH_FULL=1)}"

if [ -n "$from" ]; then
	[ "$from" -ef "$raw" ] || cp "$from" "$raw"
	cmdline=$(sed -n 's/^# command: //p' "$raw" | head -1)
	loadavg=$(sed -n 's/^# load: //p' "$raw" | head -1)
	date=$(sed -n 's/^# date: //p' "$raw" | head -1)
	commit=$(sed -n 's/^# commit: //p' "$raw" | head -1)
	elapsed=$(sed -n 's/^# elapsed: //p' "$raw" | head -1)
else
	echo "running: $cmdline" >&2
	{
		echo "# command: $cmdline"
		echo "# date: $(date -u '+%Y-%m-%d %H:%M UTC')"
		echo "# commit: $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- . ':!bench/RESULTS.*' 2>/dev/null || echo ' (with uncommitted changes in the tree)')"
		start=$(date +%s)
		go test -run '^$' -bench "$bench" -benchtime "$benchtime" -count "$count" -timeout 2h "${pkgs[@]}"
		echo "# load: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo ?)"
		secs=$(($(date +%s) - start))
		echo "# elapsed: $((secs / 60)) min $((secs % 60)) s"
	} | tee "$raw" >&2
	loadavg=$(sed -n 's/^# load: //p' "$raw" | head -1)
	date=$(sed -n 's/^# date: //p' "$raw" | head -1)
	commit=$(sed -n 's/^# commit: //p' "$raw" | head -1)
	elapsed=$(sed -n 's/^# elapsed: //p' "$raw" | head -1)
fi

if [ -n "$profile" ] && [ -z "$from" ]; then
	mkdir -p "$profile"
	go test -run '^$' -bench "$bench" -benchtime "$benchtime" -count 1 \
		-cpuprofile "$profile/cpu.out" -memprofile "$profile/mem.out" -o "$profile/bench.test" ./bench/ >/dev/null
	echo "profiles in $profile: go tool pprof -top $profile/bench.test $profile/cpu.out" >&2
fi

# benchstat: on PATH, in GOPATH/bin, or installed there now (never as a
# dependency of this module: go install with a version ignores go.mod).
benchstat=$(command -v benchstat || true)
gobin=$(go env GOBIN)
[ -z "$gobin" ] && gobin=$(go env GOPATH)/bin
if [ -z "$benchstat" ] && [ -x "$gobin/benchstat" ]; then benchstat=$gobin/benchstat; fi
if [ -z "$benchstat" ]; then
	if (cd "$tmp" && go install golang.org/x/perf/cmd/benchstat@latest) >&2; then
		benchstat=$gobin/benchstat
	else
		echo "run.sh: benchstat could not be installed; writing medians only" >&2
	fi
fi

# The client-go comparison's section (bench/clientgo/run.sh) is kept as it
# is: the one in $out, else the committed one.
clientgo=$tmp/clientgo.md
: >"$clientgo"
keep=$out
grep -qs '^<!-- clientgo:begin' "$keep" || keep=bench/RESULTS.md
[ -f "$keep" ] && awk '/^<!-- clientgo:begin/ { on = 1 } on { print } /^<!-- clientgo:end/ { on = 0 }' "$keep" >"$clientgo"

cpu=$(grep -m1 '^model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2- | sed 's/^ *//' || true)
gocpu=$(grep -m1 '^cpu: ' "$raw" | cut -d' ' -f2- | sed 's/ *$//' || true)
{
	echo "# zerokube benchmark results"
	echo
	echo "Written by \`bench/run.sh\`; do not edit by hand."
	echo
	echo "| | |"
	echo "|---|---|"
	echo "| date | ${date:-?} |"
	echo "| commit | ${commit:-?} |"
	echo "| Go | $(go version | cut -d' ' -f3-) |"
	echo "| CPU | ${gocpu:-$cpu} ($(nproc) CPUs visible, /proc/cpuinfo: ${cpu:-?}) |"
	echo "| load average (1, 5, 15 min) at the end | ${loadavg:-?} (on $(nproc) CPUs: above that, other work shared the machine) |"
	echo "| command | \`$cmdline\` |"
	echo "| duration | ${elapsed:-?} |"
	echo "| raw output | [$(basename "$raw")]($(basename "$raw")) (benchstat input) |"
	echo
	echo "Cells are medians over the runs. x-floor: time over the time jsontext needs to validate"
	echo "the same bytes, measured in the same benchmark; x-json: retained heap per object over"
	echo "the object's JSON size; peak-x-final: peak heap during the sync over the heap retained after it."
	echo
	awk -f bench/summarize.awk "$raw"
	if [ -n "$benchstat" ]; then
		echo "## benchstat"
		echo
		echo "<details><summary>benchstat summary (medians with 90% confidence intervals: 95% needs 6 runs)</summary>"
		echo
		echo '```'
		(cd "$(dirname "$raw")" && "$benchstat" -confidence 0.9 "$(basename "$raw")" 2>/dev/null)
		echo '```'
		echo
		echo "</details>"
	fi
	if [ -s "$clientgo" ]; then
		echo
		cat "$clientgo"
	fi
} >"$out"
echo "wrote $out" >&2
