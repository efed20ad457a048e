#!/bin/sh
# Installs the Debian packages numa-extender needs to build, test and run,
# only when some are missing. Needs root (or sudo) the first time.
set -eu

PKGS="build-essential pkg-config clang libjson-c-dev libyaml-dev libmicrohttpd-dev \
libcurl4-openssl-dev libgnutls28-dev libcmocka-dev libxxhash-dev zlib1g-dev valgrind"
# Only tests/integration/test_simulate_html.c uses it (a screenshot of
# simulate's HTML page); the test skips, saying so, where it cannot be had.
OPTIONAL="chromium"

installed() {
	dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"
}

# The optional packages, tried once each time they are missing; a failure is
# reported, not fatal (the build and the other tests do not need them).
optional() {
	want=""
	for p in $OPTIONAL; do
		installed "$p" || want="$want $p"
	done
	[ -z "$want" ] && return 0
	if [ "$(id -u)" -eq 0 ]; then
		run=""
	elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
		run="sudo"
	else
		echo "install-deps: optional packages not installed:$want (run as root: apt-get install$want)" >&2
		return 0
	fi
	echo "install-deps: installing (optional):$want" >&2
	# shellcheck disable=SC2086
	if ! { $run apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
		$run apt-get install -y -qq --no-install-recommends $want >/dev/null; }; then
		echo "install-deps: could not install:$want; the tests that need them will skip" >&2
	fi
	return 0
}

missing=""
for p in $PKGS; do
	installed "$p" || missing="$missing $p"
done
if [ -z "$missing" ]; then
	optional
	exit 0
fi

echo "install-deps: installing:$missing" >&2
if [ "$(id -u)" -eq 0 ]; then
	SUDO=""
elif command -v sudo >/dev/null 2>&1; then
	SUDO="sudo"
else
	echo "install-deps: missing packages:$missing; run as root: apt-get install$missing" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
optional
