#!/usr/bin/env bash
# Release check: validates .goreleaser.yaml, builds a snapshot release (all
# archives, .deb and .rpm) into dist/, and inspects the linux/amd64 .deb: the
# binary, the man pages, the three shell completions and both systemd units
# must be in it, with the maintainer scripts, and the packaged binary must report the snapshot version.
# Nothing is published. Exits non-zero on the first failure.
#
#   scripts/release-check.sh
#
# GoReleaser: $GORELEASER if set (e.g. GORELEASER=goreleaser for one on PATH),
# otherwise the pinned version through `go run`.
set -euo pipefail
cd "$(dirname "$0")/.."

GORELEASER_VERSION=v2.15.1
if [[ -n ${GORELEASER:-} ]]; then
  read -r -a gr <<<"$GORELEASER"
else
  gr=(go run "github.com/goreleaser/goreleaser/v2@$GORELEASER_VERSION")
fi

fail() { echo "release-check: FAIL: $*" >&2; exit 1; }
step() { printf '\n== %s\n' "$*"; }
need() { command -v "$1" >/dev/null 2>&1 || fail "$1 is not installed"; }
need dpkg-deb
need go

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

step "goreleaser check"
"${gr[@]}" check

step "goreleaser release --snapshot --clean --skip=publish"
start=$SECONDS
"${gr[@]}" release --snapshot --clean --skip=publish
build_secs=$((SECONDS - start))

[[ -f dist/metadata.json ]] || fail "dist/metadata.json is missing"
version=$(sed -n 's/.*"version":"\([^"]*\)".*/\1/p' dist/metadata.json)
[[ -n $version ]] || fail "no version in dist/metadata.json"

shopt -s nullglob
debs=(dist/*_amd64.deb)
rpms=(dist/*.x86_64.rpm)
archives=(dist/catchup_*_linux_amd64.tar.gz)
shopt -u nullglob
[[ ${#debs[@]} -eq 1 ]] || fail "expected one amd64 .deb in dist/, found ${#debs[@]}"
[[ ${#rpms[@]} -eq 1 ]] || fail "expected one x86_64 .rpm in dist/, found ${#rpms[@]}"
[[ ${#archives[@]} -eq 1 ]] || fail "expected one linux/amd64 archive in dist/, found ${#archives[@]}"
deb=${debs[0]}

step "dpkg-deb --info $deb"
dpkg-deb --info "$deb"
info=$(dpkg-deb --info "$deb")
grep -q "^ Package: catchup$" <<<"$info" || fail "package name is not catchup"
grep -q "^ Architecture: amd64$" <<<"$info" || fail "architecture is not amd64"

step "dpkg-deb --contents $deb"
contents=$(dpkg-deb --contents "$deb")
echo "$contents"

# Each path must be a file in the package (dpkg-deb lists them as ./path).
want=(
  /usr/bin/catchup
  /usr/share/man/man1/catchup.1.gz
  /usr/share/man/man1/catchup-run.1.gz
  /usr/share/man/man1/catchup-scan.1.gz
  /usr/share/bash-completion/completions/catchup
  /usr/share/zsh/vendor-completions/_catchup
  /usr/share/fish/vendor_completions.d/catchup.fish
  /lib/systemd/system/catchup-scan.service
  /lib/systemd/system/catchup-scan.timer
  /usr/share/doc/catchup/README.md
)
for p in "${want[@]}"; do
  grep -qE "^-[rwx-]{9} .* \.${p//./\\.}\$" <<<"$contents" || fail "$p is not in $deb"
done
grep -qE '^-rwxr-xr-x .* \./usr/bin/catchup$' <<<"$contents" || fail "/usr/bin/catchup is not mode 0755"
# The maintainer scripts (scripts/packaging/) are in the control archive.
for s in postinst prerm postrm; do
  dpkg-deb --info "$deb" "$s" | grep -q 'systemctl' || fail "$deb has no $s running systemctl"
done
mans=$(grep -c '\./usr/share/man/man1/.*\.1\.gz$' <<<"$contents" || true)

step "the packaged files work"
dpkg-deb -x "$deb" "$tmp/root"
got=$("$tmp/root/usr/bin/catchup" version)
[[ $got == "$version" ]] || fail "packaged catchup version printed '$got', want '$version'"
[[ $got != dev ]] || fail "packaged catchup version is 'dev': the -X ldflag did not apply"
echo "catchup version: $got"
for m in "$tmp"/root/usr/share/man/man1/*.1.gz; do
  gzip -t "$m" || fail "$m is not valid gzip"
  zcat "$m" | grep -q '^\.TH "CATCHUP' || fail "$m is not a man page"
done
grep -q '__start_catchup' "$tmp/root/usr/share/bash-completion/completions/catchup" || fail "bash completion looks wrong"
head -1 "$tmp/root/usr/share/zsh/vendor-completions/_catchup" | grep -q '^#compdef catchup' || fail "zsh completion looks wrong"
grep -q 'complete -c catchup' "$tmp/root/usr/share/fish/vendor_completions.d/catchup.fish" || fail "fish completion looks wrong"
grep -q '^ExecStart=/usr/bin/catchup scan' "$tmp/root/lib/systemd/system/catchup-scan.service" || fail "service does not run /usr/bin/catchup scan"
if command -v systemd-analyze >/dev/null 2>&1; then
  # Point ExecStart at the extracted binary: /usr/bin/catchup need not exist here.
  mkdir "$tmp/units"
  sed "s#/usr/bin/catchup#$tmp/root/usr/bin/catchup#" "$tmp/root/lib/systemd/system/catchup-scan.service" >"$tmp/units/catchup-scan.service"
  cp "$tmp/root/lib/systemd/system/catchup-scan.timer" "$tmp/units/"
  systemd-analyze verify --man=no "$tmp/units/catchup-scan.service" "$tmp/units/catchup-scan.timer" ||
    fail "systemd-analyze verify rejected the units"
  units_verified="systemd-analyze verify OK"
else
  units_verified="systemd-analyze not installed, units not verified"
fi

step "the linux/amd64 archive"
tar -tzf "${archives[0]}" >"$tmp/archive.txt"
for p in catchup README.md man/man1/catchup.1.gz completions/catchup.bash completions/_catchup \
  completions/catchup.fish systemd/catchup-scan.service systemd/catchup-scan.timer; do
  grep -qxF "$p" "$tmp/archive.txt" || fail "$p is not in ${archives[0]}"
done
echo "ok: $(wc -l <"$tmp/archive.txt") entries"

step "summary"
echo "goreleaser check:   ok ($("${gr[@]}" --version 2>/dev/null | sed -n 's/^GitVersion: *//p'))"
echo "snapshot build:     ok in ${build_secs}s, version $version"
echo "artifacts:          $(ls dist/*.tar.gz | wc -l) archives, $(ls dist/*.deb | wc -l) .deb, $(ls dist/*.rpm | wc -l) .rpm"
echo "deb:                $deb ($(du -h "$deb" | cut -f1), $(grep -c . <<<"$contents") entries, $mans man pages)"
echo "deb contents:       binary, man pages, bash/zsh/fish completions, 2 systemd units, docs: ok"
echo "packaged binary:    catchup version -> $got"
echo "systemd units:      $units_verified"
echo "release-check: OK"
