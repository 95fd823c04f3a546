#!/usr/bin/env bash
# Installs every Debian package Fusebox needs, only when something is missing.
# Idempotent and quiet when all is present. Usage: scripts/setup.sh [--with-fuzz]
set -euo pipefail

PACKAGES=(
  cmake ninja-build g++ pkg-config git
  llvm-19-dev llvm-19-tools
  libimgui-dev libstb-dev libglfw3-dev libgl-dev libgl1-mesa-dri libglx-mesa0
  xvfb xauth
  libgraphviz-dev graphviz
  fonts-dejavu-core fonts-jetbrains-mono
  libgtest-dev libgmock-dev libbenchmark-dev
  libcli11-dev nlohmann-json3-dev libeigen3-dev
  clang-19 libclang-rt-19-dev
  python3
)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "setup: installing ${#missing[@]} package(s): ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else
    echo "setup: need root (or sudo) to install: ${missing[*]}" >&2; exit 1
  fi
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq >/dev/null
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "setup: done"
