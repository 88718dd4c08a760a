#!/usr/bin/env bash
# Install the Debian packages Pivotal needs that are missing, and only those.
#   tools/install-system-deps.sh run    Qt's xcb platform, Mesa OpenGL, Xvfb (for headless runs),
#                                       assimp (the FBX reader)
#   tools/install-system-deps.sh test   the same plus the CMU motion-capture test clips
# Needs root (or sudo) to install; without it, it names what is missing and carries on.
set -u
mode=${1:-test}

packages=(
  # a virtual X server with GLX, and Mesa's software OpenGL (llvmpipe)
  xvfb xauth libgl1 libglx-mesa0 libgl1-mesa-dri libegl1 libopengl0
  # what Qt's xcb platform plugin links
  libxcb1 libx11-xcb1 libxcb-cursor0 libxcb-icccm4 libxcb-image0 libxcb-keysyms1
  libxcb-randr0 libxcb-render0 libxcb-render-util0 libxcb-shape0 libxcb-shm0 libxcb-sync1
  libxcb-xfixes0 libxcb-xinerama0 libxcb-xkb1 libxcb-util1 libxkbcommon0 libxkbcommon-x11-0
  # the rest of Qt's runtime: fonts, D-Bus, GLib
  libfontconfig1 libfreetype6 fonts-dejavu-core libdbus-1-3 libglib2.0-0
  # assimp, which reads FBX files (app/scene/formats/fbx/assimp.py loads it through cffi)
  libassimp5
)
if [ "$mode" = test ]; then
  packages+=(assimp-testmodels)
  # the Khronos glTF-Validator (tools/install-gltf-validator.sh) runs on Node.js
  if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
    packages+=(nodejs npm)
  fi
fi

missing=()
for p in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)
  [ "$status" = "install ok installed" ] || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if ! command -v apt-get >/dev/null 2>&1; then
  echo "install-system-deps: not a Debian system; please install: ${missing[*]}" >&2
  exit 0
fi
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    sudo="sudo -n"
  else
    echo "install-system-deps: missing ${missing[*]}; run as root to install them" >&2
    exit 0
  fi
fi
echo "install-system-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
if ! $sudo apt-get install -y -q --no-install-recommends "${missing[@]}" >/tmp/pivotal-apt.log 2>&1; then
  $sudo apt-get update -q >>/tmp/pivotal-apt.log 2>&1
  if ! $sudo apt-get install -y -q --no-install-recommends "${missing[@]}" >>/tmp/pivotal-apt.log 2>&1; then
    tail -n 20 /tmp/pivotal-apt.log >&2
    echo "install-system-deps: apt-get failed (log: /tmp/pivotal-apt.log)" >&2
    exit 1
  fi
fi
