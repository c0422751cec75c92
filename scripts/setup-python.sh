#!/usr/bin/env bash
# What the Python SDK's checks need on a Debian machine, from Debian's packages only (no other
# package index is reachable): python3, websockets (the SDK's one dependency), pytest, venv and pip
# (the install check), setuptools and wheel (the build backend that installs ./python offline).
# Installs with apt-get only what is missing (needs root or sudo); a second run does nothing.
# These belong to Debian's /usr/bin/python3: always run that one (another python3 may come first on PATH).
set -euo pipefail

PACKAGES=(python3 python3-websockets python3-pytest python3-venv python3-pip python3-setuptools python3-wheel)
missing=()
for package in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$package")
  fi
done

if [ "${#missing[@]}" -gt 0 ]; then
  echo "setup-python: installing Debian's ${missing[*]}" >&2
  SUDO=""
  if [ "$(id -u)" != "0" ]; then SUDO="sudo"; fi
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi
/usr/bin/python3 -c 'import sys, websockets, pytest; assert sys.version_info >= (3, 10), sys.version'
