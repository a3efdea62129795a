#!/usr/bin/env bash
# Creates (or brings up to date) a Python virtual environment with the
# mpiscope package (python/) and the clients it is tested with, pinned in
# python/requirements.txt (pandas, llnl-hatchet, llnl-thicket):
#   scripts/install-python.sh [VENV]        (default: build/pyenv)
# The environment is made on Debian's /usr/bin/python3 with
# --system-site-packages, because python3-otf2 (OTF2's reader, for pipit and
# the trace tests) exists only there. Work is skipped when nothing changed:
# VENV/.mpiscope-requirements holds the hash of requirements.txt last
# installed, VENV/.mpiscope-package the hash of python/'s files. The first
# run downloads about 90 MB from PyPI (1 to 2 minutes); later ones take a
# second. Installs python3-venv first when it is missing (as root).
set -euo pipefail
cd "$(dirname "$0")/.."
venv=${1:-build/pyenv}
py=/usr/bin/python3

if ! "$py" -c 'import venv, ensurepip' 2>/dev/null; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "install-python: $py has no venv module; as root: apt-get install -y python3-venv" >&2
    exit 1
  fi
  echo "install-python: installing python3-venv"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends python3-venv
fi

mkdir -p "$(dirname "$venv")"
# One installer at a time (CTest may start the setup test of two builds).
exec 9> "$venv.lock"
flock 9

if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import sys' 2>/dev/null; then
  rm -rf "$venv"
  "$py" -m venv --system-site-packages "$venv"
fi
pip=("$venv/bin/python" -m pip --disable-pip-version-check -q)

req_hash=$(sha256sum python/requirements.txt | cut -c1-64)
if [ "$(cat "$venv/.mpiscope-requirements" 2>/dev/null)" != "$req_hash" ]; then
  echo "install-python: installing python/requirements.txt into $venv"
  start=$(date +%s)
  # --no-compile: byte-compiling scipy's, pandas' and matplotlib's files took
  # 4 of the 5 minutes on a loaded 2-core machine; Python compiles what it
  # imports when it first imports it.
  "${pip[@]}" install --no-compile -r python/requirements.txt
  echo "$req_hash" > "$venv/.mpiscope-requirements"
  echo "install-python: done in $(( $(date +%s) - start )) s"
fi

# The package itself: pure Python, built with the setuptools Debian's venv
# already has (no build isolation: nothing more to download).
pkg_hash=$(cd python && find pyproject.toml README.md mpiscope -name '*.py' -o -name '*.toml' -o -name '*.md' |
  LC_ALL=C sort | xargs sha256sum | sha256sum | cut -c1-64)
if [ "$(cat "$venv/.mpiscope-package" 2>/dev/null)" != "$pkg_hash" ]; then
  build=$(mktemp -d)
  cp -r python/pyproject.toml python/README.md python/mpiscope "$build/"
  "${pip[@]}" install --no-compile --no-deps --no-build-isolation --force-reinstall "$build"
  rm -rf "$build"
  echo "$pkg_hash" > "$venv/.mpiscope-package"
  echo "install-python: mpiscope $("$venv/bin/python" -c 'import mpiscope; print(mpiscope.__version__)') installed into $venv"
fi
