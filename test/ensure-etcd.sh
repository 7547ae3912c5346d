#!/usr/bin/env bash
# Makes sure etcd is on PATH: `make test-k8s` (test/k8s) runs kube-apiserver
# over its own etcd on a free loopback port. Installs Debian's etcd-server
# package when missing (needs root or sudo).
set -euo pipefail
if command -v etcd >/dev/null 2>&1; then
  exit 0
fi
echo "etcd not found: installing Debian package etcd-server" >&2
SUDO=""
if [ "$(id -u)" != "0" ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq >/dev/null || true
$SUDO apt-get install -y -qq etcd-server >/dev/null
# The package starts a system service on 2379; the tests never use it.
$SUDO systemctl stop etcd >/dev/null 2>&1 || $SUDO service etcd stop >/dev/null 2>&1 || true
command -v etcd >/dev/null
