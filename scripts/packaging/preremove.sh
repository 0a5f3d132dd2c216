#!/bin/sh
# Package maintainer script (deb prerm, rpm %preun), wired in .goreleaser.yaml.
# On removal (not on upgrade), stop and disable the units, so that no enabled
# unit's symlink is left pointing at a removed file and the timer is not left
# loaded. The ledger (/var/lib/catchup) is left alone: it is the jobs' history.
# deb: $1 = remove | upgrade | deconfigure | failed-upgrade;
# rpm: $1 = 0 erase, 1 upgrade.
set -e
case "$1" in
remove | 0) ;;
*) exit 0 ;;
esac
units="catchup-scan.timer catchup-scan.service"
if command -v systemctl >/dev/null 2>&1; then
	if [ -d /run/systemd/system ]; then
		# shellcheck disable=SC2086 # two unit names
		systemctl disable --now $units || true
	else
		# shellcheck disable=SC2086
		systemctl --no-reload disable $units || true
	fi
fi
exit 0
