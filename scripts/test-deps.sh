#!/usr/bin/env bash
# Makes sure the external programs the tests drive are present, without touching the machine's own kubectl:
#  - kubectl 1.20 from Debian's kubernetes-client package, unpacked into .cache/ (apt-get download + dpkg -x)
#  - kubectl 1.32 from the versioned binaries beside the machine's kubectl (checked, not installed)
set -euo pipefail
cd "$(dirname "$0")/.."
export DEBIAN_FRONTEND=noninteractive
updated=0
apt_install() {
  if [ "$updated" = 0 ]; then apt-get update -qq >/dev/null; updated=1; fi
  apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}
# etcd for the etcd storage backend's tests; nginx with its stream (TCP) module as the load balancer in front of
# server replicas in the HA test.
command -v etcd >/dev/null || apt_install etcd-server
{ [ -x /usr/sbin/nginx ] && [ -e /usr/lib/nginx/modules/ngx_stream_module.so ]; } || apt_install nginx-light libnginx-mod-stream
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
