#!/usr/bin/env bash
# Makes sure the external programs the tests drive are present, without touching the machine's own kubectl:
#  - kubectl 1.20 from Debian's kubernetes-client package, unpacked into .cache/ (apt-get download + dpkg -x)
#  - kubectl 1.32 from the versioned binaries beside the machine's kubectl (checked, not installed)
#  - chromium, prometheus and victoria-metrics (Debian packages) for the web view and monitoring tests
set -euo pipefail
cd "$(dirname "$0")/.."
export DEBIAN_FRONTEND=noninteractive
# kubectl 1.32 first: it is the one thing this script cannot install, so a machine without it fails at once, in one
# line, naming what is missing (the tests look in the same places: DKC_KUBECTL_1_32, else beside kubectl's real path).
kubectl132=${DKC_KUBECTL_1_32:-}
if [ -z "$kubectl132" ]; then
  dispatcher=$(command -v kubectl || true)
  [ -n "$dispatcher" ] || { echo "kubectl 1.32 not found: no kubectl on PATH (the tests use kubectl.1.32 beside the real path of kubectl, or DKC_KUBECTL_1_32)" >&2; exit 1; }
  kubectl132="$(dirname "$(readlink -f "$dispatcher")")/kubectl.1.32"
fi
[ -x "$kubectl132" ] || { echo "kubectl 1.32 not found: $kubectl132 is missing or not executable (install kubectl 1.32 there, or set DKC_KUBECTL_1_32 to its path)" >&2; exit 1; }
updated=0
apt_install() {
  if [ "$updated" = 0 ]; then apt-get update -qq >/dev/null; updated=1; fi
  apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}
# etcd for the etcd storage backend's tests; nginx with its stream (TCP) module as the load balancer in front of
# server replicas in the HA test.
command -v etcd >/dev/null || apt_install etcd-server
{ [ -x /usr/sbin/nginx ] && [ -e /usr/lib/nginx/modules/ngx_stream_module.so ]; } || apt_install nginx-light libnginx-mod-stream
# A real browser for the web view's tests (Debian's chromium, driven by puppeteer-core; never a download), and a real
# Prometheus (with promtool) for the monitoring assets' tests.
command -v chromium >/dev/null || apt_install chromium
{ command -v prometheus >/dev/null && command -v promtool >/dev/null; } || apt_install prometheus
# vmagent (in Debian's victoria-metrics) runs the shipped Prometheus config's scrape jobs with the Kubernetes discovery
# Debian's Prometheus is built without, and writes what it scrapes into that Prometheus. Only its binary is used: the
# package's own service is left as the package installs it.
command -v vmagent >/dev/null || apt_install victoria-metrics
# The official Kubernetes client for Python, for the e2e test that drives the server with it.
/usr/bin/python3 -c 'import kubernetes' 2>/dev/null || apt_install python3-kubernetes
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
