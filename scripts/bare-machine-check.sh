#!/usr/bin/env bash
# Proof that a bare Debian 12 machine passes: makes a fresh Debian 12 root with debootstrap
# (minbase: only Essential and Priority: required packages), clones this repository's HEAD
# into it, and runs the README's two commands there as root, in a chroot: scripts/demo.sh
# (setup, build, the bundled model on the CPU target) and scripts/test.sh (every test). No
# package installed by hand on this machine, no ccache, no CUDA toolkit and no .venv reach
# the chroot, so a missing install step fails here.
#
# Usage: scripts/bare-machine-check.sh [WORK_DIR]   (as root; needs debootstrap and network
#        access to deb.debian.org and PyPI, as setup.sh does; takes 30-60 minutes on 2 cores)
# Env:   AICC_BARE_KEEP=1 keeps WORK_DIR afterwards; AICC_BARE_MIRROR picks the mirror.
# Exits with the status of the first of the two commands that fails; logs in $AICC_BARE_LOGS
# (default: a new /var/tmp/aicc-bare-logs.* directory, kept).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=${1:-$(mktemp -d /var/tmp/aicc-bare.XXXXXX)}
logs=${AICC_BARE_LOGS:-$(mktemp -d /var/tmp/aicc-bare-logs.XXXXXX)}
mirror=${AICC_BARE_MIRROR:-http://deb.debian.org/debian}
[ "$(id -u)" = 0 ] || { echo "bare-machine-check: run as root (debootstrap, chroot)"; exit 2; }
command -v debootstrap >/dev/null || { echo "bare-machine-check: apt-get install debootstrap"; exit 2; }

chroot_dir=$work/root
mounts=()
cleanup() {
  for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do umount -l "${mounts[i]}" 2>/dev/null || true; done
  [ "${AICC_BARE_KEEP:-0}" = 1 ] || rm -rf --one-file-system "$work"
}
trap cleanup EXIT

echo "== debootstrap --variant=minbase bookworm $chroot_dir"
mkdir -p "$work"
debootstrap --variant=minbase bookworm "$chroot_dir" "$mirror" > "$logs/debootstrap.log" 2>&1 ||
  { tail -20 "$logs/debootstrap.log"; exit 1; }
for m in proc sys dev dev/pts; do
  mkdir -p "$chroot_dir/$m"
  mount --bind "/$m" "$chroot_dir/$m"
  mounts+=("$chroot_dir/$m")
done
cp /etc/resolv.conf "$chroot_dir/etc/resolv.conf"
# The APT sources every Debian 12 installation and image has (debootstrap writes only the
# release itself): bookworm, bookworm-updates and bookworm-security, component main.
rm -f "$chroot_dir/etc/apt/sources.list"
cat > "$chroot_dir/etc/apt/sources.list.d/debian.sources" <<EOF
Types: deb
URIs: $mirror
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: ${AICC_BARE_SECURITY_MIRROR:-http://deb.debian.org/debian-security}
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF

# The network this machine reaches PyPI through: a local CA that signs the egress proxy's
# certificates and pip's `cert` setting are part of the environment, not of the project, so
# they are carried into the root (update-ca-certificates picks the CA up when setup.sh's
# packages install ca-certificates). Nothing else of this machine is.
if compgen -G "/usr/local/share/ca-certificates/*.crt" >/dev/null; then
  mkdir -p "$chroot_dir/usr/local/share/ca-certificates"
  cp /usr/local/share/ca-certificates/*.crt "$chroot_dir/usr/local/share/ca-certificates/"
fi
if [ -f /etc/pip.conf ] && grep -q '^cert *=' /etc/pip.conf; then
  printf '[global]\n%s\n' "$(grep '^cert *=' /etc/pip.conf | head -1)" > "$chroot_dir/etc/pip.conf"
fi
echo "== clone $(git -C "$root" rev-parse --short HEAD) into the chroot"
git clone -q --no-hardlinks "$root" "$chroot_dir/root/aicc"
git -C "$chroot_dir/root/aicc" checkout -q "$(git -C "$root" rev-parse HEAD)"

in_chroot() {
  chroot "$chroot_dir" /usr/bin/env -i HOME=/root PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    LANG=C.UTF-8 TERM=dumb /bin/bash -c "cd /root/aicc && $1"
}
status=0
for cmd in scripts/demo.sh scripts/test.sh; do
  log=$logs/$(basename "$cmd" .sh).log
  echo "== $cmd (log: $log)"
  start=$(date +%s)
  if in_chroot "$cmd" > "$log" 2>&1; then
    echo "   passed in $(( $(date +%s) - start )) s"
  else
    status=$?
    echo "   FAILED (exit $status) after $(( $(date +%s) - start )) s; last lines:"
    tail -40 "$log"
    break
  fi
done
[ "$status" = 0 ] && echo "bare-machine-check: both README commands pass on a fresh Debian 12 root"
exit "$status"
