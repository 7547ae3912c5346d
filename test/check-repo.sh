#!/usr/bin/env bash
# Repository hygiene, run by `make test` (and so by CI):
#  - no tracked file is a binary larger than 1 MiB (build outputs stay out);
#  - go.mod and go.sum of both modules (. and membersdk/) are tidy (`go mod
#    tidy` would change nothing);
#  - the committed OpenAPI document (api/openapi/openapi.json) is what huma
#    derives from the registered routes;
#  - every commit subject after 89310e1, merges included, is at most 72 characters (the body
#    says why); skipped where that commit is not in the clone (shallow).
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
# Both modules: the server's (.) and the member SDK's (membersdk/, its own
# module so that applications do not get the server's dependencies).
for mod in . membersdk; do
  mkdir -p "$tmp/$mod"
  cp "$mod/go.mod" "$mod/go.sum" "$tmp/$mod/"
  (cd "$mod" && go mod tidy)
  if ! cmp -s "$mod/go.mod" "$tmp/$mod/go.mod" || ! cmp -s "$mod/go.sum" "$tmp/$mod/go.sum"; then
    echo "check-repo: $mod/go.mod or $mod/go.sum is not tidy; 'go mod tidy' in $mod changed them:" >&2
    diff -u "$tmp/$mod/go.mod" "$mod/go.mod" >&2 || true
    cp "$tmp/$mod/go.mod" "$tmp/$mod/go.sum" "$mod/"
    fail=1
  fi
done
if ! go test -count=1 -run '^TestOpenAPIUpToDate$' ./api/ >/dev/null; then
  echo "check-repo: api/openapi/openapi.json is stale: go test ./api -run TestOpenAPIUpToDate -update-openapi" >&2
  fail=1
fi
subjects_base=89310e1
if git cat-file -e "$subjects_base^{commit}" 2>/dev/null; then
  while IFS= read -r line; do
    echo "check-repo: commit subject over 72 characters (${#line}): $line — reword it (git commit --amend or rebase) before it lands" >&2
    fail=1
  done < <(git log --format=%s "$subjects_base..HEAD" | awk 'length($0) > 72')
fi
exit $fail
