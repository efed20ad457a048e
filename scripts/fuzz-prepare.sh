#!/bin/sh
# The inputs of one fuzz run, for `make fuzz` and scripts/fuzz-campaign.sh:
# WORK, a scratch corpus holding the generated corpus
# (tests/fuzz/corpus/TARGET/) and the hand-written seeds
# (tests/fuzz/seeds/TARGET/, copied under their own names), and DICT, the
# dictionaries of the text formats TARGET reads (tests/fuzz/dict/) in one
# file for -dict=. Nothing under tests/fuzz/ is written.
#   sh scripts/fuzz-prepare.sh TARGET WORK DICT
set -eu
if [ $# -ne 3 ]; then
	echo "usage: sh scripts/fuzz-prepare.sh TARGET WORK DICT" >&2
	exit 2
fi
target=$1 work=$2 dict=$3
# What each target reads; a new target must be listed here.
case $target in
cel)           formats="cel" ;;
config)        formats="yaml config" ;;
decide)        formats="nrt quantity kube json yaml" ;;
dra)           formats="dra kube quantity json yaml" ;;
events)        formats="json nrt quantity kube" ;;
judge | nrt)   formats="nrt quantity json yaml" ;;
pod)           formats="kube quantity json yaml" ;;
quantity)      formats="quantity" ;;
request | wire) formats="kube quantity json" ;;
sched)         formats="kube quantity yaml json" ;;
*)
	echo "fuzz-prepare: target \"$target\" has no dictionaries listed in scripts/fuzz-prepare.sh" >&2
	exit 2
	;;
esac
mkdir -p "$work"
for dir in tests/fuzz/corpus/$target tests/fuzz/seeds/$target; do
	if [ -d "$dir" ]; then
		cp -r "$dir"/. "$work"/
	fi
done
: >"$dict"
for f in $formats; do
	cat "tests/fuzz/dict/$f.dict" >>"$dict"
done
