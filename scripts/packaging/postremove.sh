#!/bin/sh
# Package maintainer script (deb postrm, rpm %postun), wired in .goreleaser.yaml.
# After the unit files are gone (removal) or replaced (upgrade), make systemd
# forget or reread them. The ledger (/var/lib/catchup) is left alone, on purge too.
# deb: $1 = remove | purge | upgrade | ...; rpm: $1 = 0 erase, 1 upgrade.
set -e
if [ -d /run/systemd/system ] && command -v systemctl >/dev/null 2>&1; then
	systemctl daemon-reload || true
fi
exit 0
