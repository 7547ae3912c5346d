#!/usr/bin/env bash
# Makes sure redis-server is on PATH: the integration and end-to-end tests
# start their own redis-server on a free loopback port. Installs Debian's
# redis-server package when missing (needs root or sudo).
set -euo pipefail
if command -v redis-server >/dev/null 2>&1; then
  exit 0
fi
echo "redis-server not found: installing Debian package redis-server" >&2
SUDO=""
if [ "$(id -u)" != "0" ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq >/dev/null || true
$SUDO apt-get install -y -qq redis-server >/dev/null
# The package starts a system service on 6379; the tests never use it.
$SUDO systemctl stop redis-server >/dev/null 2>&1 || $SUDO service redis-server stop >/dev/null 2>&1 || true
command -v redis-server >/dev/null
