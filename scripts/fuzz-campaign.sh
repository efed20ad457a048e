#!/bin/sh
# A fuzz campaign: each named target (default: all) runs RUNS executions
# (default 1000000) on its generated corpus (tests/fuzz/corpus/<name>/) and
# its hand-written seeds (tests/fuzz/seeds/<name>/), with the dictionaries
# of what it reads (scripts/fuzz-prepare.sh); then what it found that the
# seeds do not already cover is merged (minimised) back into the corpus.
# The seeds are never renamed, moved or rewritten.
# Prints one line per target: name, executions, seconds, corpus size, result.
# Any crash, leak or timeout stops the campaign with the artifact's path.
#   sh scripts/fuzz-campaign.sh [-r RUNS] [target ...]
set -u
runs=1000000
if [ "${1:-}" = "-r" ]; then runs=$2; shift 2; fi
targets=${*:-$(ls tests/fuzz/fuzz_*.c | sed 's|tests/fuzz/fuzz_||; s|\.c$||')}
make --no-print-directory $(for t in $targets; do printf 'build-fuzz/fuzz_%s ' "$t"; done) >/dev/null || exit 2
# A small quarantine: this machine's page faults are dear, and ASan's
# default 256 MiB quarantine makes every execution touch fresh pages.
export ASAN_OPTIONS=quarantine_size_mb=16
for t in $targets; do
	corpus=tests/fuzz/corpus/$t
	seeds=tests/fuzz/seeds/$t
	work=$(mktemp -d)
	dict=$work.dict
	mkdir -p "$corpus"
	sh scripts/fuzz-prepare.sh "$t" "$work" "$dict" || { rm -rf "$work" "$dict"; exit 2; }
	start=$(date +%s)
	if ! ./build-fuzz/fuzz_$t -runs="$runs" -timeout=10 -rss_limit_mb=2048 -close_fd_mask=2 \
		-dict="$dict" -artifact_prefix=build-fuzz/$t- "$work" >build-fuzz/$t.campaign.log 2>&1; then
		tail -30 build-fuzz/$t.campaign.log
		echo "fuzz_$t: FAILED (see build-fuzz/$t.campaign.log)"
		rm -rf "$work" "$dict"
		exit 1
	fi
	secs=$(( $(date +%s) - start ))
	# The seeds go into the merge's output first, under their own names, so
	# that only what adds to them is kept; they are taken out again before
	# the rest replaces the corpus.
	merged=$(mktemp -d)
	if [ -d "$seeds" ]; then
		cp -r "$seeds"/. "$merged"/
	fi
	if ! ./build-fuzz/fuzz_$t -merge=1 -close_fd_mask=2 "$merged" "$work" \
		>build-fuzz/$t.merge.log 2>&1; then
		tail -30 build-fuzz/$t.merge.log
		echo "fuzz_$t: the merge FAILED (see build-fuzz/$t.merge.log); corpus left as it was"
		rm -rf "$work" "$dict" "$merged"
		exit 1
	fi
	if [ -d "$seeds" ]; then
		for s in "$seeds"/*; do
			rm -f "$merged/$(basename "$s")"
		done
	fi
	rm -rf "$corpus" && mkdir -p "$corpus" && cp "$merged"/* "$corpus"/ 2>/dev/null
	done_line=$(grep -E '^#[0-9]+[[:space:]]+DONE' build-fuzz/$t.campaign.log | tail -1)
	echo "fuzz_$t: $runs runs in ${secs}s, corpus $(ls "$corpus" | wc -l) files; $done_line; no crash"
	rm -rf "$work" "$dict" "$merged"
done
