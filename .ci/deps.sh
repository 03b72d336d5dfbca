#!/usr/bin/env bash
# Makes sure the tools `make test` needs beyond Go are present:
# Chromium (browser tests), Node.js (engine tests under GOOS=js) and
# poppler-utils (pdftotext: the course's printed handout is read back);
# and, optionally, brotli (make build writes main.wasm.br with it).
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
if ! command -v pdftotext >/dev/null 2>&1; then
	missing+=(poppler-utils)
fi
# A CJK font, so that the Simplified Chinese screenshots the browser tests
# save can be read (the tests check text, not glyphs: a warning only).
optional=()
if command -v fc-list >/dev/null 2>&1 && [ -z "$(fc-list :lang=zh 2>/dev/null | head -1)" ]; then
	optional+=(fonts-wqy-microhei)
fi
# brotli: without it make build writes only the .gz copies.
if ! command -v brotli >/dev/null 2>&1; then
	optional+=(brotli)
fi
if [ ${#missing[@]} -eq 0 ] && [ ${#optional[@]} -eq 0 ]; then
	exit 0
fi
if [ ${#missing[@]} -eq 0 ] && [ "$(id -u)" -ne 0 ]; then
	echo "deps: optional packages missing: ${optional[*]} (no Chinese font: zh screenshots show boxes; no brotli: no main.wasm.br); sudo apt-get install -y ${optional[*]}" >&2
	exit 0
fi
missing+=("${optional[@]}")

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
