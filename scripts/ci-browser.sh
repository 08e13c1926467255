#!/bin/sh
# ci-browser.sh — make a Chromium-family browser available for the
# real-browser test of diagram (TestBrowser), which opens the
# HTML diagram with `chromium --headless --dump-dom`, lets the page test
# its own readability (lane names, labels, deep links, search, a 10^5-event
# run; function only, no timing) and skips, saying so, when no browser is
# on PATH.
#
# Installs Debian's chromium when none is present. Tolerant of failure: no
# root, no network or no apt only means the browser test will skip, so
# this script always exits 0. Usage: scripts/ci-browser.sh
set -u

for b in chromium chromium-browser google-chrome google-chrome-stable; do
	if command -v "$b" >/dev/null 2>&1; then
		echo "ci-browser: found $(command -v "$b")"
		exit 0
	fi
done

if ! command -v apt-get >/dev/null 2>&1; then
	echo "ci-browser: no browser and no apt-get; the real-browser test will skip" >&2
	exit 0
fi

SUDO=""
if [ "$(id -u)" != 0 ]; then
	if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
		SUDO="sudo -n"
	else
		echo "ci-browser: not root and no password-less sudo; the real-browser test will skip" >&2
		exit 0
	fi
fi

echo "ci-browser: installing Debian's chromium"
export DEBIAN_FRONTEND=noninteractive
if $SUDO apt-get update -q >/dev/null && $SUDO apt-get install -y -q chromium >/dev/null; then
	echo "ci-browser: installed $(command -v chromium || echo '?')"
else
	echo "ci-browser: installing chromium failed; the real-browser test will skip" >&2
fi
exit 0
