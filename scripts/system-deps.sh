#!/usr/bin/env bash
# The system tools that the capture and browser tests use, from the
# distribution's packages: tshark (decodes hoplab's pcaps), tcptrace (the
# reference for TCP figures), tcpdump (captures of real Linux TCP) and
# chromium (the animator's page, driven headless by playwright-core, which
# nodejs and npm run: tests/browser), ns-2.35 and its examples (ns2,
# ns2-examples: the peer that `hoplab crosscheck` and the ns-2 script tests
# run, and the scripts and reference traces they read). Installed only where
# missing, and only where apt-get can run as root; elsewhere the tests that
# need a tool skip with a message naming it.
set -uo pipefail
need=()
for pair in tshark:tshark tcptrace:tcptrace tcpdump:tcpdump chromium:chromium node:nodejs npm:npm; do
    tool="${pair%%:*}" pkg="${pair##*:}"
    command -v "$tool" >/dev/null 2>&1 || need+=("$pkg")
done
command -v ns >/dev/null 2>&1 || need+=(ns2)
[ -d /usr/share/doc/ns2/examples/tcl ] || need+=(ns2-examples)
[ ${#need[@]} -eq 0 ] && exit 0
if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    echo "system-deps: missing ${need[*]} (not root or no apt-get): their tests will skip" >&2
    exit 0
fi
echo "== apt-get install ${need[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get install -y -q "${need[@]}" >/dev/null 2>&1 \
    || { apt-get update -q >/dev/null 2>&1 && apt-get install -y -q "${need[@]}" >/dev/null 2>&1; } \
    || echo "system-deps: could not install ${need[*]}: their tests will skip" >&2
exit 0
