#!/usr/bin/env bash
# Installs every Debian package Fusebox needs, only when something is missing.
# Idempotent and quiet when all is present.
# Usage: scripts/setup.sh [--with-fuzz] [--with-cuda-tools] [--with-venv]
#
# --with-cuda-tools (or FUSEBOX_WITH_CUDA_TOOLS=1) also installs CUDA 13's cuobjdump and
# nvdisasm, which the SASS stage needs, from PyPI (nvidia-cuda-cuobjdump,
# nvidia-cuda-nvdisasm) into a Python venv at $FUSEBOX_CUDA_TOOLS_DIR, by default
# ${XDG_DATA_HOME:-$HOME/.local/share}/fusebox/cuda-tools, and links both into its bin/.
# Fusebox looks there (see docs/gpu-tools.md). Without the flag nothing is downloaded but
# Debian packages.
set -euo pipefail

WITH_CUDA_TOOLS="${FUSEBOX_WITH_CUDA_TOOLS:-0}"
WITH_VENV=0
for arg in "$@"; do
  case "$arg" in
    --with-cuda-tools) WITH_CUDA_TOOLS=1 ;;
    --with-venv) WITH_VENV=1 ;;  # python3-venv, for the jax scripts (compare_xla, make_dumps)
  esac
done

PACKAGES=(
  cmake ninja-build g++ pkg-config git
  llvm-19-dev llvm-19-tools
  libimgui-dev libstb-dev libglfw3-dev libgl-dev libgl1-mesa-dri libglx-mesa0
  xvfb xauth
  libgraphviz-dev graphviz
  fonts-dejavu-core fonts-jetbrains-mono
  libgtest-dev libgmock-dev libbenchmark-dev
  libcli11-dev nlohmann-json3-dev libeigen3-dev
  libprotobuf-dev protobuf-compiler zlib1g-dev
  libdtl-dev libxml2-dev libarchive-dev chromium
  libdnnl-dev libfftw3-dev liblapack3 libopenblas0-pthread
  clang-19 libclang-rt-19-dev lld-19
  python3
)
if [ "$WITH_CUDA_TOOLS" = "1" ] || [ "$WITH_VENV" = "1" ]; then
  PACKAGES+=(python3-venv)
fi

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -gt 0 ]; then
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
fi

if [ "$WITH_CUDA_TOOLS" != "1" ]; then
  exit 0
fi

# CUDA tools from PyPI. The wheels put the binaries in
# <venv>/lib/python3.X/site-packages/nvidia/cu13/bin/; bin/ gets stable links to them.
TOOLS_DIR="${FUSEBOX_CUDA_TOOLS_DIR:-${XDG_DATA_HOME:-$HOME/.local/share}/fusebox/cuda-tools}"
if [ -x "$TOOLS_DIR/bin/cuobjdump" ] && [ -x "$TOOLS_DIR/bin/nvdisasm" ]; then
  echo "setup: cuobjdump: $TOOLS_DIR/bin/cuobjdump (already installed)"
  exit 0
fi

echo "setup: installing cuobjdump and nvdisasm from PyPI into $TOOLS_DIR"
PYTHON=/usr/bin/python3
[ -x "$PYTHON" ] || PYTHON="$(command -v python3)"
mkdir -p "$(dirname "$TOOLS_DIR")"
if [ ! -x "$TOOLS_DIR/bin/python" ]; then
  "$PYTHON" -m venv "$TOOLS_DIR"
fi
# Major version 13, as CUDA 13's ptxas writes cubins older tools cannot read.
"$TOOLS_DIR/bin/python" -m pip install -q --disable-pip-version-check \
  "nvidia-cuda-cuobjdump>=13,<14" "nvidia-cuda-nvdisasm>=13,<14"

for tool in cuobjdump nvdisasm; do
  found="$(find "$TOOLS_DIR/lib" -path "*/site-packages/nvidia/cu*/bin/$tool" -type f | sort | tail -n 1)"
  if [ -z "$found" ]; then
    echo "setup: pip installed no $tool under $TOOLS_DIR/lib" >&2; exit 1
  fi
  chmod +x "$found"
  ln -sf "../${found#"$TOOLS_DIR"/}" "$TOOLS_DIR/bin/$tool"
done
echo "setup: cuobjdump: $TOOLS_DIR/bin/cuobjdump -> $(readlink "$TOOLS_DIR/bin/cuobjdump")"
"$TOOLS_DIR/bin/cuobjdump" --version | tail -n 2
