# Strata server image: stratad and the strata CLI on Debian 12.
#   docker build -t strata .        (or: docker compose -f deploy/docker-compose.yml build)
# Data lives in the volume /var/lib/strata; configuration comes from STRATA_* environment
# variables (every stratad flag has one: `stratad --help`).

# ---- build: the -dev packages and a release build of the two binaries, no tests ----
FROM debian:bookworm-slim AS build
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      build-essential cmake ninja-build pkg-config \
      libgrpc++-dev protobuf-compiler-grpc libprotobuf-dev protobuf-compiler grpc-proto \
      librocksdb-dev libxxhash-dev libspdlog-dev libfmt-dev libabsl-dev libcli11-dev \
      libzstd-dev liblz4-dev libsnappy-dev libssl-dev libjemalloc-dev libedit-dev libre2-dev \
      libsodium-dev prometheus-cpp-dev libcpp-httplib-dev ccache \
      golang-etcd-server-dev golang-github-gogo-protobuf-dev golang-github-gogo-googleapis-dev \
      libnats-dev \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY CMakeLists.txt ./
COPY proto proto
COPY common common
COPY rpc rpc
COPY storage storage
COPY query query
COPY cluster cluster
COPY server server
COPY client client
COPY cmake cmake
# The web console's bundle when scripts/build.sh made it (console/dist): stratad embeds it.
COPY console console
# ccache's directory is a build cache mount (BuildKit, buildah): after a source change only
# what changed is compiled again; the layer cache alone would recompile everything.
RUN --mount=type=cache,target=/root/.cache/ccache \
    cmake -S . -B /build -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DSTRATA_BUILD_TESTS=OFF -DSTRATA_BUILD_BENCH=OFF -DSTRATA_INSTALL_RULES=OFF \
 && cmake --build /build --target stratad strata \
 && strip /build/server/stratad /build/client/strata

# ---- runtime: only the shared libraries the binaries load ----
FROM debian:bookworm-slim
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      libgrpc++1.51 libprotobuf32 librocksdb7.8 libxxhash0 libspdlog1.10 libfmt9 \
      libabsl20220623 libjemalloc2 libedit2 libre2-9 libsodium23 libssl3 openssl \
      libprometheus-cpp-core1.0 libcpp-httplib0.11 libnats3.4 tzdata \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --system --uid 10001 --user-group --home-dir /var/lib/strata --shell /usr/sbin/nologin strata \
 && mkdir -p /var/lib/strata /var/lib/strata-tls /var/lib/strata-backups \
 && chown strata:strata /var/lib/strata /var/lib/strata-tls /var/lib/strata-backups
COPY --from=build /build/server/stratad /build/client/strata /usr/local/bin/
COPY deploy/demo/load-demo.sh /usr/local/share/strata/load-demo.sh
COPY deploy/docker-entrypoint.sh /usr/local/bin/docker-entrypoint.sh

# Inside the container stratad listens on every interface, so TLS and tokens are on
# (docs/security.md): the entrypoint makes a private CA and a server certificate in
# /var/lib/strata-tls at first start (or mount your own and point STRATA_TLS_CERT/KEY at it),
# and stratad writes the first admin token to /var/lib/strata/admin.token (mode 0600).
# STRATA_TLS_CA is for the CLI inside the container (health check, demo). The certificates
# live apart from the data so that a restore (into an empty data directory) keeps them;
# /var/lib/strata-backups is where `strata backup create --to` can write.
ENV STRATA_DATA_DIR=/var/lib/strata \
    STRATA_LISTEN=0.0.0.0:7878 \
    STRATA_HTTP_LISTEN=0.0.0.0:7879 \
    STRATA_PG_LISTEN=0.0.0.0:7880 \
    STRATA_TLS_GENERATE=true \
    STRATA_TLS_CERT=/var/lib/strata-tls/server.pem \
    STRATA_TLS_KEY=/var/lib/strata-tls/server.key \
    STRATA_TLS_CA=/var/lib/strata-tls/ca.pem \
    STRATA_LOG_FORMAT=json \
    STRATA_DURABILITY=fsync
USER strata
VOLUME /var/lib/strata /var/lib/strata-tls /var/lib/strata-backups
EXPOSE 7878 7879 7880
# The standard gRPC health service (open without a token), asked by the bundled CLI over TLS
# (exit 0 when SERVING).
HEALTHCHECK --interval=10s --timeout=5s --start-period=15s --retries=3 \
  CMD ["strata", "health", "--timeout", "3"]
# SIGTERM: stratad stops accepting, finishes in-flight calls, flushes and closes the data dir.
STOPSIGNAL SIGTERM
ENTRYPOINT ["/usr/local/bin/docker-entrypoint.sh"]
