#!/usr/bin/env bash
# fetch-model.sh URL SHA256 DEST — download the page's built-in model and
# keep it only if its sha256 is the one kvscope was made with.
# The Pages workflow runs it; make test-site runs it on a local copy.
set -euo pipefail
url=$1 want=$2 dest=$3
tmp=$(mktemp "${dest}.XXXXXX")
trap 'rm -f "$tmp"' EXIT
curl -fsSL --retry 3 -o "$tmp" "$url"
got=$(sha256sum "$tmp" | cut -d' ' -f1)
if [ "$got" != "$want" ]; then
  echo "fetch-model: $url has sha256 $got, want $want" >&2
  exit 1
fi
mv "$tmp" "$dest"
trap - EXIT
echo "fetch-model: $dest ($(wc -c <"$dest") bytes, sha256 $got)"
