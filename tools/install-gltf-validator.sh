#!/usr/bin/env bash
# Install the Khronos glTF-Validator (npm package gltf-validator) into build/gltf-validator,
# the judge of every glTF file the tests write. Needs node and npm (tools/install-system-deps.sh
# installs Debian's nodejs and npm when they are missing).
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
prefix="$root/build/gltf-validator"
[ -d "$prefix/node_modules/gltf-validator" ] && exit 0
if ! command -v npm >/dev/null 2>&1; then
  echo "install-gltf-validator: npm is missing; run tools/install-system-deps.sh test as root" >&2
  exit 1
fi
mkdir -p "$prefix"
npm install --prefix "$prefix" --no-audit --no-fund --silent gltf-validator@2.0.0-dev.3.10 >&2
