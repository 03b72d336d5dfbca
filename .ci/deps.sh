#!/usr/bin/env bash
# Makes sure the tools `make test` needs beyond Go are present:
# Chromium (browser tests) and Node.js (engine tests under GOOS=js).
# As root it installs what is missing with apt-get; otherwise it says what
# to install and fails. Silent when everything is there.
set -euo pipefail

missing=()
if ! command -v chromium >/dev/null 2>&1 && ! command -v chromium-browser >/dev/null 2>&1; then
	missing+=(chromium)
fi
if ! command -v node >/dev/null 2>&1; then
	missing+=(nodejs)
fi
if [ ${#missing[@]} -eq 0 ]; then
	exit 0
fi

if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
	echo "deps: installing ${missing[*]} with apt-get" >&2
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq "${missing[@]}" >/dev/null
	exit 0
fi

echo "deps: make test needs these Debian packages: ${missing[*]}" >&2
echo "deps: install them with: sudo apt-get update && sudo apt-get install -y ${missing[*]}" >&2
exit 1
