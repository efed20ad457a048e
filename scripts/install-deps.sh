#!/bin/sh
# Installs the Debian packages numa-extender needs to build, test and run,
# only when some are missing. Needs root (or sudo) the first time.
set -eu

PKGS="build-essential pkg-config clang libjson-c-dev libyaml-dev libmicrohttpd-dev \
libcurl4-openssl-dev libgnutls28-dev libcmocka-dev libxxhash-dev valgrind"

missing=""
for p in $PKGS; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
		missing="$missing $p"
	fi
done
[ -z "$missing" ] && exit 0

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
