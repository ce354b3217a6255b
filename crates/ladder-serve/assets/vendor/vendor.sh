#!/bin/sh
# Vendors the browser's Ed25519 verifier from the npm registry, reproducibly: fetches the two
# tarballs at their pinned versions with `npm pack`, checks each against the sha512 integrity
# recorded here (the registry's `dist.integrity`), and copies the files the verifier imports,
# unchanged, with their licences. Run from this directory: `sh vendor.sh`; then `git diff` must
# show nothing (or, after a version change, record the new hashes in README.md).
set -eu
CURVES=2.4.0
HASHES=2.4.0
CURVES_SHA512='sha512-P4/62zrgfH33CneE3Dn4WhJVA22YUU0eR51wKIan4NVRvwsA0YnPTwWGpNbpuacSujmSFLvyzpyuR30+fbq2Ew=='
HASHES_SHA512='sha512-X5XaVWZIBCT7HHZGm5I7ZQXDwLG+bGXuSrMQAW+7Zvl87h1kmc1ZB1VSRJcpUfoUrGQp4Fkoxm5kZ+Ms+aW+eA=='
# The module graph of ed25519.js: every file it imports, directly or not.
CURVES_FILES='LICENSE ed25519.js utils.js abstract/curve.js abstract/edwards.js abstract/fft.js
  abstract/frost.js abstract/hash-to-curve.js abstract/modular.js abstract/montgomery.js abstract/oprf.js'
HASHES_FILES='LICENSE sha2.js utils.js _md.js _u64.js sha3.js hmac.js legacy.js'

here=$(pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
npm pack --silent "@noble/curves@$CURVES" "@noble/hashes@$HASHES" >/dev/null
check() {
  got="sha512-$(openssl dgst -sha512 -binary "$1" | base64 | tr -d '\n')"
  [ "$got" = "$2" ] || { echo "$1: integrity $got, expected $2" >&2; exit 1; }
}
check "noble-curves-$CURVES.tgz" "$CURVES_SHA512"
check "noble-hashes-$HASHES.tgz" "$HASHES_SHA512"
copy() { # tarball, destination, files
  mkdir -p unpack && rm -rf unpack/package && tar xzf "$1" -C unpack
  rm -rf "$here/$2"
  for f in $3; do
    mkdir -p "$(dirname "$here/$2/$f")"
    cp "unpack/package/$f" "$here/$2/$f"
  done
}
copy "noble-curves-$CURVES.tgz" "noble-curves-$CURVES" "$CURVES_FILES"
copy "noble-hashes-$HASHES.tgz" "noble-hashes-$HASHES" "$HASHES_FILES"
cd "$here"
# The subresource integrity of each file, as README.md records them and the page's import map gives them.
for f in $(find noble-curves-$CURVES noble-hashes-$HASHES -name '*.js' | LC_ALL=C sort); do
  echo "sha384-$(openssl dgst -sha384 -binary "$f" | base64 | tr -d '\n')  $f"
done
