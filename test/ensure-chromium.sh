#!/usr/bin/env bash
# Makes sure a headless Chromium is on PATH for the web console test
# (test/console), which drives it over the DevTools protocol on loopback.
# Installs Debian's chromium package when missing (needs root or sudo);
# chromium-driver comes along for anyone who prefers WebDriver.
set -euo pipefail
if command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1; then
  exit 0
fi
echo "chromium not found: installing Debian packages chromium chromium-driver" >&2
SUDO=""
if [ "$(id -u)" != "0" ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq >/dev/null || true
$SUDO apt-get install -y -qq --no-install-recommends chromium chromium-driver fonts-dejavu-core >/dev/null
command -v chromium >/dev/null
