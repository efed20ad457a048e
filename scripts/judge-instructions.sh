#!/bin/sh
# Instructions per judgement (callgrind, which does not vary with the
# machine) for every row of bench_topology's part 2: 8/16/32/64 NUMA nodes,
# every policy, a node where the pod fits one NUMA node ("admit") and one
# where it does not ("reject": single-numa-node and restricted reject,
# best-effort admits a wider mask). Prints each count and its ratio to the
# same row at 8 NUMA nodes with the targets (16: <= 4x; 32, 64: <= 10x).
# Usage: scripts/judge-instructions.sh [BUILD]   (default build/; needs valgrind)
set -eu
build=${1:-build}
bench=$build/bench/bench_topology
if [ ! -x "$bench" ]; then
	make --no-print-directory O=-O2 BUILD="$build" "$bench" >/dev/null
fi
out=$(mktemp)
trap 'rm -f "$out"' EXIT
printf '%4s  %-16s %-7s %14s %7s  %s\n' NUMA policy layout instr/call "x of 8" target
status=0
for policy in single-numa-node restricted best-effort; do
	for layout in admit reject; do
		base=
		for n in 8 16 32 64; do
			valgrind --tool=callgrind --callgrind-out-file="$out" \
				--toggle-collect=judge_node_ex "$bench" --callgrind "$n" "$policy" "$layout" \
				>/dev/null 2>&1
			total=$(callgrind_annotate "$out" | awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1 }')
			per=$((total / 1000))
			[ -n "$base" ] || base=$per
			ratio=$(awk -v a="$per" -v b="$base" 'BEGIN { printf "%.2f", a / b }')
			case $n in
			8) target=- ok= ;;
			16) target="<= 4x"; ok=$(awk -v r="$ratio" 'BEGIN { print (r <= 4 ? "ok" : "MISSED") }') ;;
			*) target="<= 10x"; ok=$(awk -v r="$ratio" 'BEGIN { print (r <= 10 ? "ok" : "MISSED") }') ;;
			esac
			[ "$ok" != MISSED ] || status=1
			printf '%4d  %-16s %-7s %14s %7s  %s %s\n' "$n" "$policy" "$layout" "$per" "$ratio" "$target" "$ok"
		done
	done
done
exit $status
