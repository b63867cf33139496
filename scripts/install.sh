#!/usr/bin/env bash
# Installs Strata on this machine: stratad and strata in PREFIX/bin (/usr/local/bin: on PATH),
# a default configuration (/usr/local/etc/strata/stratad.toml, kept if it exists), the system
# user `strata`, the data directory /var/lib/strata and a systemd unit (stratad.service).
# Usage: scripts/install.sh [PREFIX]        (as root, or with sudo available)
# Then: systemctl enable --now stratad      (where systemd runs), or run stratad yourself.
set -euo pipefail
cd "$(dirname "$0")/.."
prefix=${1:-/usr/local}
scripts/deps.sh
# A release build of the two binaries only, beside the development build.
cmake -S . -B build-release -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$prefix" \
  -DCMAKE_INSTALL_SYSCONFDIR="$prefix/etc" -DSTRATA_BUILD_TESTS=OFF -DSTRATA_BUILD_BENCH=OFF \
  >/dev/null
cmake --build build-release --target stratad strata

sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
config="$prefix/etc/strata/stratad.toml"
[ -f "$config" ] && cp -p "$config" "$config.kept"
$sudo cmake --install build-release --strip >/dev/null
[ -f "$config.kept" ] && $sudo mv "$config.kept" "$config"   # an edited configuration stays
if ! id strata >/dev/null 2>&1; then
  $sudo useradd --system --user-group --home-dir /var/lib/strata --shell /usr/sbin/nologin strata
fi
$sudo install -d -o strata -g strata -m 0750 /var/lib/strata
if [ -d /run/systemd/system ]; then
  $sudo systemctl daemon-reload
  echo "installed; start it with: systemctl enable --now stratad"
else
  echo "installed; no systemd here: run '$prefix/bin/stratad --config $config' as the strata user"
fi
"$prefix/bin/strata" --version
