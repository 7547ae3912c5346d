#!/usr/bin/env bash
# Repository hygiene, run by `make test` (and so by CI):
#  - no tracked file is a binary larger than 1 MiB (build outputs stay out);
#  - go.mod and go.sum are tidy (`go mod tidy` would change nothing).
set -euo pipefail
cd "$(dirname "$0")/.."
fail=0
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  while IFS= read -r -d '' f; do
    [ -f "$f" ] || continue
    size=$(stat -c %s "$f")
    if [ "$size" -gt 1048576 ] && ! grep -Iq . "$f"; then
      echo "check-repo: $f is a tracked binary of $size bytes (over 1 MiB): remove it with 'git rm --cached' and keep build outputs in bin/" >&2
      fail=1
    fi
  done < <(git ls-files -z)
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp go.mod go.sum "$tmp"/
go mod tidy
if ! cmp -s go.mod "$tmp/go.mod" || ! cmp -s go.sum "$tmp/go.sum"; then
  echo "check-repo: go.mod/go.sum are not tidy; 'go mod tidy' changed them:" >&2
  diff -u "$tmp/go.mod" go.mod >&2 || true
  cp "$tmp/go.mod" "$tmp/go.sum" .
  fail=1
fi
exit $fail
