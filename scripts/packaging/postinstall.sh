#!/bin/sh
# Package maintainer script (deb postinst, rpm %post), wired in .goreleaser.yaml.
# Makes systemd see the units this package installed or upgraded. The units are
# not enabled here: see docs/recipes.md (systemctl enable --now catchup-scan.timer ...).
# deb: $1 = configure (also abort-upgrade, ...); rpm: $1 = 1 install, 2 upgrade.
set -e
if [ -d /run/systemd/system ] && command -v systemctl >/dev/null 2>&1; then
	systemctl daemon-reload || true
fi
exit 0
