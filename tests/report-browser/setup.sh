#!/usr/bin/env bash
# Installs what the report's Firefox test needs, idempotently: Debian's firefox-esr
# (when missing, with apt-get, as root or with sudo) and puppeteer-core at the version
# pinned by package-lock.json into node_modules/ beside this script. Chromium and
# playwright-core come from tests/vscode-e2e/setup.sh.
#
#   bash tests/report-browser/setup.sh
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
say() { printf '[report-browser setup] %s\n' "$*"; }

if ! command -v firefox-esr >/dev/null 2>&1 && ! command -v firefox >/dev/null 2>&1; then
  if [ "$(id -u)" -eq 0 ]; then SUDO=; elif sudo -n true 2>/dev/null; then SUDO="sudo -n"; else SUDO=none; fi
  if [ "$SUDO" = none ] || ! command -v apt-get >/dev/null 2>&1; then
    say "Firefox is missing and cannot be installed here; install firefox-esr (sudo apt-get install firefox-esr)" >&2
    exit 1
  fi
  say "installing firefox-esr"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends firefox-esr
fi

STAMP="$HERE/node_modules/.installed"
LOCK_HASH="$(sha256sum "$HERE/package-lock.json" | cut -d' ' -f1)"
if [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$LOCK_HASH" ]; then
  exit 0
fi
say "installing puppeteer-core"
(cd "$HERE" && PUPPETEER_SKIP_DOWNLOAD=1 npm ci --no-audit --no-fund --loglevel=error)
echo "$LOCK_HASH" > "$STAMP"
