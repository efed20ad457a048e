#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# `serve` under valgrind (memcheck, full leak check) through a scripted
# session that drives every verb with curl, good requests and bad ones, a
# SIGHUP reload and inventory changes, then SIGTERM. Two sessions:
#   files: NRT files (config/examples, tests/data/server/nrt and the
#          exporter shapes of tests/data/exporters, bad objects included)
#          with the decision log on, and DRA objects from files
#          (tests/data/dra/explain) with dra.alignment: require, a pod
#          with a GPU claim filtered and prioritized;
#   kube:  the Kubernetes source, the ledger and bind on loopback, with a
#          kubeconfig that points at a port nobody listens on (list and
#          watch retries, stale filter, bind's failure path);
#   tls:   mTLS with a client allow-list (GnuTLS), refused clients included.
# Fails unless each session's valgrind reports no error and no definite,
# indirect or possible leak (libraries' still-reachable blocks are fine;
# none is suppressed today: should a library's own global ever show as a
# possible leak, name it in scripts/valgrind.supp, used when present).
# Builds without sanitizers (-O1 -g) in $BUILD (build-valgrind).
# Usage: sh scripts/valgrind-serve.sh   (or: make valgrind); VALGRIND_KEEP=1
# keeps the logs and valgrind's reports.
set -eu
cd "$(dirname "$0")/.."

BUILD=${BUILD:-build-valgrind}
BIN=$BUILD/bin/numa-extender
# Generous: valgrind makes serve 20-50 times slower.
DEADLINE=${VALGRIND_DEADLINE:-180}

command -v valgrind >/dev/null || { echo "valgrind-serve: valgrind is not installed" >&2; exit 2; }
command -v curl >/dev/null || { echo "valgrind-serve: curl is not installed" >&2; exit 2; }
make --no-print-directory BUILD="$BUILD" SAN= O=-O1 WERROR=1 "$BIN"

WORK=$(mktemp -d /tmp/numa-valgrind-XXXXXX)
VG_PID=
cleanup() {
	if [ -n "$VG_PID" ] && kill -0 "$VG_PID" 2>/dev/null; then
		kill -KILL "$VG_PID" 2>/dev/null || true
	fi
	if [ "${VALGRIND_KEEP:-0}" = 1 ]; then
		echo "valgrind-serve: logs kept in $WORK"
	else
		rm -rf "$WORK"
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Suppressions for library globals that are not ours, if any are needed.
SUPP=
[ ! -f scripts/valgrind.supp ] || SUPP=--suppressions=scripts/valgrind.supp

START=$(date +%s)
FAILS=0
fail() {
	echo "valgrind-serve: FAIL: $*" >&2
	FAILS=$((FAILS + 1))
}

# Valgrind and serve of the current session.
start_serve() { # name config [scheme://host]
	NAME=$1
	LOG=$WORK/$NAME.log
	VGLOG=$WORK/$NAME.valgrind
	valgrind --leak-check=full --show-leak-kinds=definite,indirect,possible \
		--errors-for-leak-kinds=definite,indirect,possible --error-exitcode=99 \
		--track-fds=no --num-callers=40 $SUPP \
		--log-file="$VGLOG" \
		"$BIN" serve --config "$2" >"$LOG" 2>&1 &
	VG_PID=$!
	PORT=
	i=0
	while [ $i -lt $((DEADLINE * 10)) ]; do
		PORT=$(sed -n 's/.*msg="listening".* port=\([0-9][0-9]*\).*/\1/p' "$LOG" | head -1)
		[ -n "$PORT" ] && break
		kill -0 "$VG_PID" 2>/dev/null || break
		sleep 0.1
		i=$((i + 1))
	done
	if [ -z "$PORT" ]; then
		cat "$LOG" "$VGLOG" >&2
		echo "valgrind-serve: $NAME: serve never listened" >&2
		exit 1
	fi
	URL=${3:-http://127.0.0.1}:$PORT
	echo "== $NAME: serve under valgrind on $URL"
}

# req METHOD PATH WANT_STATUS [curl args...]: the reply's status must be WANT.
req() {
	method=$1 path=$2 want=$3
	shift 3
	got=$(curl -s -o "$WORK/reply" -w '%{http_code}' --max-time "$DEADLINE" -X "$method" \
		"$@" "$URL$path" || true)
	if [ "$got" != "$want" ]; then
		fail "$NAME: $method $path: status $got, want $want: $(head -c 300 "$WORK/reply" 2>/dev/null)"
	fi
}
# post PATH WANT_STATUS FILE [curl args...]
post() {
	path=$1 want=$2 file=$3
	shift 3
	req POST "$path" "$want" -H 'Content-Type: application/json' --data-binary "@$file" "$@"
}
# The reply holds text.
reply_has() {
	grep -qF -- "$1" "$WORK/reply" || fail "$NAME: reply lacks '$1': $(head -c 300 "$WORK/reply")"
}

# Until GET PATH answers 200 with a body holding text (deadline).
wait_for() { # path text
	i=0
	while [ $i -lt $((DEADLINE * 5)) ]; do
		if curl -s --max-time 10 "$URL$1" 2>/dev/null | grep -qF -- "$2"; then
			return 0
		fi
		sleep 0.2
		i=$((i + 1))
	done
	fail "$NAME: GET $1 never showed '$2'"
	return 1
}

# Until GET PATH answers STATUS (deadline).
wait_status() { # path status
	i=0
	while [ $i -lt $((DEADLINE * 5)) ]; do
		[ "$(curl -s -o /dev/null -w '%{http_code}' --max-time 10 "$URL$1" || true)" = "$2" ] &&
			return 0
		sleep 0.2
		i=$((i + 1))
	done
	fail "$NAME: GET $1 never answered $2"
	return 1
}

wait_log() { # text
	i=0
	while [ $i -lt $((DEADLINE * 5)) ]; do
		grep -qF -- "$1" "$LOG" && return 0
		sleep 0.2
		i=$((i + 1))
	done
	fail "$NAME: the log never said '$1'"
	return 1
}

# SIGTERM, wait for valgrind to exit, judge its report.
stop_serve() {
	kill -TERM "$VG_PID"
	i=0
	while kill -0 "$VG_PID" 2>/dev/null && [ $i -lt $((DEADLINE * 10)) ]; do
		sleep 0.1
		i=$((i + 1))
	done
	if kill -0 "$VG_PID" 2>/dev/null; then
		fail "$NAME: serve did not exit within ${DEADLINE}s of SIGTERM"
		kill -KILL "$VG_PID" 2>/dev/null || true
	fi
	rc=0
	wait "$VG_PID" || rc=$?
	VG_PID=
	summary=$(grep 'ERROR SUMMARY' "$VGLOG" || true)
	echo "== $NAME: exit status $rc; ${summary#==*== }"
	sed -n 's/^==[0-9]*==  *\(definitely\|indirectly\|possibly\|still\) /   \1 /p' "$VGLOG"
	if [ "$rc" -ne 0 ] || ! grep -q 'ERROR SUMMARY: 0 errors' "$VGLOG"; then
		fail "$NAME: valgrind exit status $rc; see the report below"
		cat "$VGLOG" >&2
		echo "--- serve's log:" >&2
		tail -40 "$LOG" >&2
		return
	fi
	for kind in definitely indirectly possibly; do
		if grep -q "$kind lost: [1-9]" "$VGLOG"; then
			fail "$NAME: $kind lost blocks"
			cat "$VGLOG" >&2
		fi
	done
	grep -q 'msg="stopped"' "$LOG" || fail "$NAME: serve did not log its orderly stop"
}

# --- bodies ---------------------------------------------------------------
W=tests/data/fixtures/wire
printf '{"Pod": {"metadata": {"name": "x"' >"$WORK/malformed.json"
printf '{"Pod": 5, "NodeNames": "worker-a17"}' >"$WORK/wrong-types.json"
printf '{"Pod": {"metadata": {"name": [1], "namespace": {}}, "spec": {"containers": 7}}, "NodeNames": [1, null]}' \
	>"$WORK/wrong-types-deep.json"
: >"$WORK/empty.json"
# Invalid UTF-8 in the pod's name, a resource name and a node name.
printf '{"Pod":{"metadata":{"name":"bad-\377\376","namespace":"d","uid":"u"},"spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"1","ex\300mple.com/x":"1"},"limits":{"cpu":"1"}}}]}},"NodeNames":["worker-a17","n\355\240\200"]}' \
	>"$WORK/bad-utf8.json"
# Valid JSON whose escapes decode to lone surrogates (not UTF-8): in names
# that pass, and in a resource name that is refused.
printf '{"Pod":{"metadata":{"name":"bad-\\ud800x","namespace":"d\\udfff","uid":"u\\ud83d"},"spec":{"containers":[{"name":"c\\ud83d","resources":{"requests":{"cpu":"1"},"limits":{"cpu":"1"}}}]}},"NodeNames":["worker-a17","n\\ud800"]}' \
	>"$WORK/surrogates.json"
printf '{"Pod":{"metadata":{"name":"p","namespace":"d","uid":"u"},"spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"1","ex\\udc00mple.com/x":"1"},"limits":{"cpu":"1"}}}]}},"NodeNames":["worker-a17"]}' \
	>"$WORK/surrogate-resource.json"
# A resource with a 240-character prefix (the decision log's parts once
# overflowed on it), Guaranteed, over every node.
prefix=$(printf '%0240d' 0 | tr 0 p)
nodes='"worker-a17","worker-dsa-split","worker-fat16","worker-gpu4","worker-gpu-017","stream-worker-c","worker-new"'
printf '{"Pod":{"metadata":{"name":"long","namespace":"d","uid":"u-long"},"spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"2","memory":"1Gi","%s.example.com/dev":"1"},"limits":{"cpu":"2","memory":"1Gi","%s.example.com/dev":"1"}}}]},"status":{"qosClass":"Guaranteed"}},"NodeNames":[%s]}' \
	"$prefix" "$prefix" "$nodes" >"$WORK/long-prefix.json"
# Exporter shapes: millicores, zones: [], hugepages on one NUMA node.
printf '{"Pod":{"metadata":{"name":"dpdk","namespace":"net","uid":"u-dpdk"},"spec":{"containers":[{"name":"dpdk","resources":{"requests":{"cpu":"2","memory":"1Gi","hugepages-2Mi":"512Mi"},"limits":{"cpu":"2","memory":"1Gi","hugepages-2Mi":"512Mi"}}}]}},"NodeNames":["fake-gpu-node-1","koord-worker-new","nfd-worker-2","rte-worker-1","stream-worker-a","stream-worker-b","list-worker-1","list-worker-2"]}' \
	>"$WORK/exporters.json"
# Over limits.maxBodyBytes (64Ki below).
{ printf '{"Pod":{},"NodeNames":["'; printf '%0100000d' 0; printf '"]}'; } >"$WORK/too-big.json"

# --- session 1: inventory files, decision log ------------------------------
mkdir -p "$WORK/nrt"
cp config/examples/*.yaml tests/data/server/nrt/*.yaml "$WORK/nrt/"
for f in tests/data/exporters/*.yaml; do
	case $(basename "$f") in pod-*) ;; *) cp "$f" "$WORK/nrt/" ;; esac
done
cp tests/data/dra/explain/nrt.yaml "$WORK/nrt/dra-nodes.yaml"
mkdir -p "$WORK/dra"
cp tests/data/dra/explain/dra/*.yaml "$WORK/dra/"
# tests/data/dra/explain/pod-train.yaml as kube-scheduler sends it.
printf '%s' '{"Pod":{"metadata":{"name":"train-0","namespace":"ml","uid":"u-train"},"spec":{"resourceClaims":[{"name":"gpu","resourceClaimName":"train-gpu"}],"containers":[{"name":"train","resources":{"limits":{"cpu":"8","memory":"8Gi"},"claims":[{"name":"gpu"}]}}]},"status":{"qosClass":"Guaranteed"}},"NodeNames":["gpu-mis","gpu-ok","worker-a17"]}' >"$WORK/dra-filter.json"
write_config() { # level strategy
	cat >"$WORK/files.yaml" <<EOF
listen: "127.0.0.1:0"
missingInventory: allow
inventory: {source: files, dir: $WORK/nrt, pollInterval: 200ms, dra: {dir: $WORK/dra}}
dra: {enabled: true, alignment: require}
limits: {maxBodyBytes: 64Ki}
scoring: {strategy: $2}
decisionLog: {path: $WORK/decisions.jsonl, maxBytes: 64Ki, maxFiles: 2}
threads: 2
log: {level: $1}
EOF
}
write_config info LeastAllocated
start_serve files "$WORK/files.yaml"

req GET /healthz 200
wait_status /readyz 200 || true
req GET /metrics 200
reply_has numa_extender_inventory_nodes
req GET /ledger 404
req GET /ledger/worker-a17 404

good_requests() {
	post /filter 200 "$W/filter-request-nodecache.json"
	reply_has '"NodeNames"'
	post /filter 200 "$W/filter-request-fullnodes.json"
	reply_has '"Nodes"'
	post /prioritize 200 "$W/prioritize-request.json"
	reply_has '"Host"'
	post /prioritize 200 "$W/filter-request-fullnodes.json"
	post /filter 200 config/requests/filter-dsa.json
	reply_has 'worker-dsa-split'
	post /prioritize 200 config/requests/filter-dsa.json
	post /filter 200 "$WORK/exporters.json"
	reply_has 'UnexpectedAdmissionError'
	post /prioritize 200 "$WORK/exporters.json"
	post /filter 200 "$WORK/long-prefix.json"
	post /prioritize 200 "$WORK/long-prefix.json"
	post /filter 200 "$WORK/dra-filter.json"
	reply_has 'NUMA: DRA devices gpu-1'
	post /prioritize 200 "$WORK/dra-filter.json"
}
good_requests
# The same again: the verdict and score caches answer.
good_requests

post /filter 400 "$WORK/malformed.json"
post /prioritize 400 "$WORK/malformed.json"
# Wrong types: filter answers 200 with Error (kube-scheduler reads only
# 200 bodies), prioritize has no Error field: 400.
post /filter 200 "$WORK/wrong-types.json"
reply_has '"Error":"Pod: expected an object'
post /filter 200 "$WORK/wrong-types-deep.json"
reply_has '"Error":"'
post /prioritize 400 "$WORK/wrong-types.json"
post /prioritize 400 "$WORK/wrong-types-deep.json"
post /filter 400 "$WORK/empty.json"
post /prioritize 400 "$WORK/empty.json"
# Raw invalid UTF-8 is malformed JSON.
post /filter 400 "$WORK/bad-utf8.json"
reply_has 'invalid UTF-8'
post /prioritize 400 "$WORK/bad-utf8.json"
post /filter 200 "$WORK/surrogates.json"
reply_has '"Error":""'
post /prioritize 200 "$WORK/surrogates.json"
post /filter 200 "$WORK/surrogate-resource.json"
reply_has 'not a valid resource name'
post /prioritize 400 "$WORK/surrogate-resource.json"
# Refused from Content-Length before the body is read.
req POST /filter 413 -H 'Content-Type: application/json' -H 'Content-Length: 1000000000000' \
	--data-binary '{}'
post /filter 413 "$WORK/too-big.json"
# Chunked: counted as it arrives.
post /prioritize 413 "$WORK/too-big.json" -H 'Transfer-Encoding: chunked'
req GET /nope 404
post /nope 404 "$W/filter-request-nodecache.json"
req GET /filter 405
req DELETE /prioritize 405
req PUT /metrics 405
# bind is off: no such route.
post /bind 404 "$W/bind-request.json"

# Inventory changes: a node edited, one removed, one added; a bad file.
sed 's/allocatable: "8"/allocatable: "6"/' "$WORK/nrt/multi-doc.yaml" >"$WORK/nrt/.m" &&
	mv "$WORK/nrt/.m" "$WORK/nrt/multi-doc.yaml"
rm "$WORK/nrt/worker-legacy.yaml"
sed 's/worker-plain/worker-plain-2/' config/examples/worker-plain.yaml >"$WORK/nrt/.p" &&
	mv "$WORK/nrt/.p" "$WORK/nrt/worker-plain-2.yaml"
printf 'kind: NodeResourceTopology\nmetadata: {name: [\n' >"$WORK/nrt/broken.yaml"
wait_for /metrics 'numa_extender_inventory_generation 2' ||
	wait_for /metrics 'numa_extender_inventory_generation 3' || true
wait_log 'broken.yaml' || true

# SIGHUP: another strategy and debug logging (the judge's long messages).
write_config debug MostAllocated
kill -HUP "$VG_PID"
wait_log 'msg="configuration reloaded"' || true
good_requests
# A reload that fails keeps the previous configuration.
printf 'listen: [\n' >"$WORK/files.yaml"
kill -HUP "$VG_PID"
wait_log 'SIGHUP: invalid configuration' || true
post /filter 200 config/requests/filter-dsa.json
req GET /metrics 200
reply_has numa_extender_decision_log
stop_serve
[ -s "$WORK/decisions.jsonl" ] || fail "files: the decision log is empty"

# --- session 2: Kubernetes source nobody answers, ledger and bind ----------
# A port nobody listens on: bound, then closed.
DEAD=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])' 2>/dev/null || echo 9)
cat >"$WORK/kubeconfig" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: c
  cluster: {server: "http://127.0.0.1:$DEAD"}
users:
- name: u
  user: {token: not-a-real-token}
contexts:
- name: x
  context: {cluster: c, user: u}
current-context: x
EOF
cat >"$WORK/kube.yaml" <<EOF
listen: "127.0.0.1:0"
inventory: {source: kubernetes, kubeconfig: $WORK/kubeconfig, requestTimeout: 2s}
ledger: {enabled: true}
bind: {enabled: true}
decisionLog: {path: $WORK/decisions-kube.jsonl}
log: {level: debug}
EOF
start_serve kube "$WORK/kube.yaml"
req GET /healthz 200
req GET /readyz 503
wait_log 'port=' || true
post /filter 200 "$W/filter-request-nodecache.json"
reply_has 'topology inventory unavailable'
post /prioritize 200 "$W/prioritize-request.json"
post /bind 200 "$W/bind-request.json"
reply_has '"Error":"'
post /bind 400 "$WORK/malformed.json"
post /bind 200 "$WORK/wrong-types.json"
post /bind 200 "$WORK/bad-utf8.json"
req GET /bind 405
req GET /ledger 200
req GET /ledger/worker-gpu-017 404
req GET /metrics 200
kill -HUP "$VG_PID"
wait_log 'msg="configuration reloaded"' || true
stop_serve

# --- session 3: mTLS (GnuTLS) ----------------------------------------------
T=tests/data/tls
cat >"$WORK/tls.yaml" <<EOF
listen: "127.0.0.1:0"
tls: {certFile: $T/server.crt, keyFile: $T/server.key, clientCAFile: $T/ca.crt,
      clientNames: [kube-scheduler]}
inventory: {source: files, dir: $WORK/nrt}
decisionLog: {path: $WORK/decisions-tls.jsonl}
EOF
start_serve tls "$WORK/tls.yaml" https://localhost
ME="--cacert $T/ca.crt --cert $T/client.crt --key $T/client.key"
# shellcheck disable=SC2086
req GET /healthz 200 $ME
# shellcheck disable=SC2086
post /filter 200 "$W/filter-request-nodecache.json" $ME
reply_has '"NodeNames"'
# shellcheck disable=SC2086
post /prioritize 200 "$W/prioritize-request.json" $ME
# shellcheck disable=SC2086
post /filter 400 "$WORK/malformed.json" $ME
# Refused: no client certificate, a CA-signed one with the wrong name, a
# self-signed one with the right name (the handshake or the request fails).
for who in none intruder rogue; do
	case $who in
	none) args="--cacert $T/ca.crt" ;;
	*) args="--cacert $T/ca.crt --cert $T/$who.crt --key $T/$who.key" ;;
	esac
	# shellcheck disable=SC2086
	got=$(curl -s -o /dev/null -w '%{http_code}' --max-time "$DEADLINE" $args \
		-H 'Content-Type: application/json' \
		--data-binary "@$W/filter-request-nodecache.json" "$URL/filter" || true)
	[ "$got" != 200 ] || fail "tls: a client with certificate '$who' was served"
done
# Plain HTTP on the TLS port.
curl -s -o /dev/null --max-time "$DEADLINE" "http://127.0.0.1:$PORT/healthz" || true
kill -HUP "$VG_PID"
wait_log 'msg="configuration reloaded"' || true
# shellcheck disable=SC2086
req GET /metrics 200 $ME
stop_serve

echo "valgrind-serve: $((FAILS)) failure(s) in $(($(date +%s) - START))s"
[ "$FAILS" -eq 0 ]
