#!/bin/sh
# The image's entrypoint: starts stratad. With STRATA_TLS_GENERATE=true (the image's default)
# and no certificate at STRATA_TLS_CERT yet, it first makes, once, a private CA and a server
# certificate for the compose network (names stratad, localhost, 127.0.0.1 and whatever
# STRATA_TLS_EXTRA_SAN adds, e.g. "DNS:db.example.com,IP:10.0.0.5") in its own volume
# (/var/lib/strata-tls: a restore into an empty data volume keeps it).
# Clients trust the CA: copy $STRATA_TLS_CA out of the container (deploy/README.md). To use your
# own certificate, mount it and point STRATA_TLS_CERT / STRATA_TLS_KEY at it.
set -eu

# openssl, its output shown only when it fails.
ssl() {
  if ! out=$(openssl "$@" 2>&1); then
    echo "entrypoint: openssl $1 failed: $out" >&2
    exit 1
  fi
}

if [ "${STRATA_TLS_GENERATE:-false}" = true ] && [ -n "${STRATA_TLS_CERT:-}" ] &&
   [ ! -f "$STRATA_TLS_CERT" ]; then
  dir=$(dirname "$STRATA_TLS_CERT")
  mkdir -p "$dir"
  umask 077
  ec="-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes"
  ca_key="$dir/ca.key"
  ca_cert="${STRATA_TLS_CA:-$dir/ca.pem}"
  if [ ! -f "$ca_cert" ]; then
    # shellcheck disable=SC2086
    ssl req -x509 $ec -keyout "$ca_key" -out "$ca_cert" -days 3650 -subj "/CN=Strata private CA"
  fi
  san="DNS:stratad,DNS:localhost,IP:127.0.0.1${STRATA_TLS_EXTRA_SAN:+,$STRATA_TLS_EXTRA_SAN}"
  printf 'subjectAltName=%s\nextendedKeyUsage=serverAuth\n' "$san" >"$dir/server.ext"
  # shellcheck disable=SC2086
  ssl req $ec -keyout "$STRATA_TLS_KEY" -out "$dir/server.csr" -subj "/CN=stratad"
  ssl x509 -req -in "$dir/server.csr" -CA "$ca_cert" -CAkey "$ca_key" -CAcreateserial \
    -days 825 -out "$STRATA_TLS_CERT" -extfile "$dir/server.ext"
  rm -f "$dir/server.csr" "$dir/server.ext"
  chmod 644 "$ca_cert" "$STRATA_TLS_CERT"
  echo "entrypoint: made a private CA ($ca_cert) and a server certificate for $san" >&2
fi
exec stratad "$@"
