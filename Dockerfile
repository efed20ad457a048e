# numa-extender container image: build on Debian bookworm, run on
# bookworm-slim with only the shared libraries the binary links, as an
# unprivileged user.
#   docker build -t numa-extender:0.1.0 .
# The image reads its configuration from /etc/numa-extender/config.yaml (a
# ConfigMap in manifests/); none is baked in.

# ---- build ----------------------------------------------------------------
FROM debian:bookworm AS build
# The subset of scripts/install-deps.sh that bin/numa-extender needs: the
# compiler, pkg-config and one -dev package per pkg-config module of the
# Makefile's PKGS (cmocka, clang and valgrind are for tests and fuzzing).
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      build-essential pkg-config libjson-c-dev libyaml-dev libmicrohttpd-dev \
      libcurl4-openssl-dev libgnutls28-dev libxxhash-dev \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
# Only what the binary is built from; .dockerignore keeps local build
# outputs out of the context.
COPY Makefile ./
COPY base/ base/
COPY topology/ topology/
COPY scheduler/ scheduler/
COPY dra/ dra/
COPY extender/ extender/
RUN make WERROR=1 bin/numa-extender \
 && ./bin/numa-extender version

# ---- runtime --------------------------------------------------------------
FROM debian:bookworm-slim
# The runtime library of each -dev package above (libcurl4 and libgnutls30
# bring their own dependencies); ca-certificates for the API server when a
# kubeconfig points at a publicly signed endpoint.
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      libjson-c5 libyaml-0-2 libmicrohttpd12 libcurl4 libgnutls30 libxxhash0 ca-certificates \
 && rm -rf /var/lib/apt/lists/* \
 && groupadd --system --gid 65532 numa-extender \
 && useradd --system --uid 65532 --gid 65532 --no-create-home \
      --home-dir /nonexistent --shell /usr/sbin/nologin numa-extender
COPY --from=build /src/bin/numa-extender /usr/local/bin/numa-extender
LABEL org.opencontainers.image.title="numa-extender" \
      org.opencontainers.image.description="Kubernetes scheduler extender that simulates the kubelet Topology Manager" \
      org.opencontainers.image.version="0.1.0" \
      org.opencontainers.image.licenses="Apache-2.0"
# Numeric, so that the kubelet can check runAsNonRoot without a passwd lookup.
USER 65532:65532
# 8888: extender (sidecar, loopback); 8443: extender with TLS; 9090: metricsListen.
EXPOSE 8888 8443 9090
ENTRYPOINT ["/usr/local/bin/numa-extender"]
CMD ["serve", "--config", "/etc/numa-extender/config.yaml"]
