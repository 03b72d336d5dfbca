#!/usr/bin/env bash
# Makes sure the tools `make test` needs beyond Go are present:
# Chromium (browser tests), Node.js (engine tests under GOOS=js),
# poppler-utils (pdftotext: the course's printed handout is read back),
# two CJK fonts (the handout is printed in each), the static-site
# generators Hugo, Jekyll and MkDocs (the embedding examples are built with
# them) and brotli (make build writes main.wasm.br with it; optional).
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
# site/browsertest/ssg_test.go builds site/examples/{hugo,jekyll,mkdocs}
# with them; make test sets GPUSCOPE_REQUIRE_SSG=1, so a missing one fails.
for ssg in hugo jekyll mkdocs; do
	command -v "$ssg" >/dev/null 2>&1 || missing+=("$ssg")
done
# The Chinese fonts Debian machines most often have: the course's printed
# handout is read back once in each (site/browsertest/course_test.go), and
# the Simplified Chinese screenshots need one to be legible. make test sets
# GPUSCOPE_REQUIRE_FONTS=1, so a missing one fails the print test.
has_font() { # FAMILY PACKAGE
	if command -v fc-list >/dev/null 2>&1; then
		[ -n "$(fc-list ":family=$1" family 2>/dev/null | head -1)" ]
	else
		dpkg-query -W -f='${Status}' "$2" 2>/dev/null | grep -q "install ok installed"
	fi
}
has_font "WenQuanYi Micro Hei" fonts-wqy-microhei || missing+=(fonts-wqy-microhei)
has_font "Noto Sans CJK SC" fonts-noto-cjk || missing+=(fonts-noto-cjk)
# brotli: without it make build writes only the .gz copies (a warning).
optional=()
if ! command -v brotli >/dev/null 2>&1; then
	optional+=(brotli)
fi
if [ ${#missing[@]} -eq 0 ] && [ ${#optional[@]} -eq 0 ]; then
	exit 0
fi
if [ ${#missing[@]} -eq 0 ] && [ "$(id -u)" -ne 0 ]; then
	echo "deps: optional package missing: ${optional[*]} (no brotli: no main.wasm.br); sudo apt-get install -y ${optional[*]}" >&2
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
