#!/usr/bin/env bash
# Makes sure the external programs the tests drive are present, without touching the machine's own kubectl:
#  - kubectl 1.20 from Debian's kubernetes-client package, unpacked into .cache/ (apt-get download + dpkg -x)
#  - kubectl 1.32 from the versioned binaries beside the machine's kubectl (checked, not installed)
set -euo pipefail
cd "$(dirname "$0")/.."
cache=.cache/kubernetes-client
if [ ! -x "$cache/usr/bin/kubectl" ]; then
  mkdir -p .cache/debs
  if ! (cd .cache/debs && apt-get download kubernetes-client >/dev/null 2>&1); then
    apt-get update -qq >/dev/null
    (cd .cache/debs && apt-get download kubernetes-client >/dev/null)
  fi
  rm -rf "$cache.tmp" && mkdir -p "$cache.tmp"
  dpkg -x .cache/debs/kubernetes-client_*.deb "$cache.tmp"
  rm -rf "$cache" && mv "$cache.tmp" "$cache"
fi
"$cache/usr/bin/kubectl" version --client >/dev/null 2>&1 || { echo "kubectl 1.20 in $cache does not run" >&2; exit 1; }
