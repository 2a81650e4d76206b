#!/usr/bin/env bash
# No dependency a crate does not use (offline, grep-based, in the manner of cargo-machete):
# for each dependency of each workspace member, the name its code uses (the key in
# Cargo.toml, dashes made underscores; a `package = "..."` rename is used by its key)
# must appear as a path (`name::`), a `use name` or an `extern crate name` in that crate's
# sources:
#   [dependencies]        src/ (and build.rs)
#   [build-dependencies]  build.rs
#   [dev-dependencies]    src/, tests/, benches/, examples/
# A normal dependency that only the tests, benches or examples use fails too: it belongs
# in [dev-dependencies]. And every [workspace.dependencies] entry must be inherited by some
# member. Target-specific tables (`[target.'cfg(..)'.dependencies]`) count
# as their kind.
#
#   scripts/check-unused-deps.sh [WORKSPACE_DIR]     # default: this repository
#
# Exit 0: every dependency is used; 1: some are not (each named on stderr with its crate
# and table); 2: usage. tests/it/floors.rs runs it on a planted unused dependency.
set -euo pipefail

root="${1:-$(cd "$(dirname "$0")/.." && pwd)}"
if [ ! -f "$root/Cargo.toml" ]; then
  echo "usage: $0 [WORKSPACE_DIR] (a directory with a Cargo.toml)" >&2
  exit 2
fi

# Dependencies used in no `name::` form, each with its reason: "crate dependency".
# - tieout-io chrono: turns on chrono's default features so the product and the tests
#   share one polars build (see crates/io/Cargo.toml).
# - tieout-testkit tieout: turns on the root package's `harness` feature for the tests,
#   benches and examples (see crates/testkit/Cargo.toml).
IGNORED=(
  "tieout-io chrono"
  "tieout-testkit tieout"
)

# The workspace's members, from `members = [...]` in the root manifest (one line or many).
members="$(awk '
  /^\[workspace\]/ { in_ws = 1; next }
  /^\[/ { in_ws = 0 }
  in_ws && /^members[[:space:]]*=/ { collecting = 1 }
  collecting {
    line = $0
    while (match(line, /"[^"]*"/)) {
      print substr(line, RSTART + 1, RLENGTH - 2)
      line = substr(line, RSTART + RLENGTH)
    }
    if ($0 ~ /\]/) collecting = 0
  }
' "$root/Cargo.toml")"
[ -n "$members" ] || members="."

# Their folders (a member may be a glob such as `crates/*`).
fail=0
member_dirs=()
while IFS= read -r member; do
  for dir in "$root"/${member#./}; do
    dir="${dir%/.}"
    if [ -f "$dir/Cargo.toml" ]; then
      member_dirs+=("$dir")
    else
      echo "unused-deps: workspace member $member has no Cargo.toml ($dir)" >&2
      fail=1
    fi
  done
done <<<"$members"

# A manifest's dependencies as "kind key" lines (kind: normal, dev or build).
deps_of() {
  awk '
    function kind_of(section) {
      sub(/^target\.[^\]]*\)['"'"'"]?\./, "", section)
      if (section ~ /^dependencies(\.|$)/) return "normal"
      if (section ~ /^dev-dependencies(\.|$)/) return "dev"
      if (section ~ /^build-dependencies(\.|$)/) return "build"
      return ""
    }
    /^[[:space:]]*#/ { next }
    /^[[:space:]]*\[/ {
      section = $0
      sub(/^[[:space:]]*\[+/, "", section); sub(/\]+[[:space:]]*(#.*)?$/, "", section)
      kind = kind_of(section)
      table_dep = 0
      # [dependencies.name]: the table is one dependency.
      if (kind != "" && match(section, /(dependencies)\.[A-Za-z0-9_-]+$/)) {
        name = section; sub(/.*dependencies\./, "", name)
        print kind, name
        table_dep = 1
      }
      next
    }
    kind != "" && !table_dep && /^[[:space:]]*[A-Za-z0-9_-]+[[:space:]]*(\.[[:space:]]*workspace[[:space:]]*)?=/ {
      name = $0
      sub(/^[[:space:]]*/, "", name); sub(/[[:space:]]*[.=].*$/, "", name)
      print kind, name
    }
  ' "$1"
}

# True when `name` (underscored) is used in the .rs files under the given paths.
used_in() {
  local name="$1"
  shift
  local paths=()
  for p in "$@"; do
    [ -e "$p" ] && paths+=("$p")
  done
  [ "${#paths[@]}" -gt 0 ] || return 1
  grep -rqE --include='*.rs' \
    "(^|[^A-Za-z0-9_:])(::)?${name}::|(^|[^A-Za-z0-9_])(use|extern crate)[[:space:]]+${name}([^A-Za-z0-9_]|$)" \
    "${paths[@]}"
}

checked=0
for dir in "${member_dirs[@]}"; do
  manifest="$dir/Cargo.toml"
  crate="$(awk '/^\[package\]/ { p = 1; next } /^\[/ { p = 0 } p && /^name[[:space:]]*=/ { gsub(/.*=[[:space:]]*"|".*/, ""); print; exit }' "$manifest")"
  while read -r kind key; do
    [ -n "$key" ] || continue
    checked=$((checked + 1))
    skip=0
    for entry in "${IGNORED[@]}"; do
      [ "$entry" = "$crate $key" ] && skip=1
    done
    [ "$skip" = 1 ] && continue
    name="${key//-/_}"
    case "$kind" in
      normal)
        table="dependencies"
        where="src/"
        used_in "$name" "$dir/src" "$dir/build.rs" && continue
        if used_in "$name" "$dir/tests" "$dir/benches" "$dir/examples"; then
          echo "unused-deps: $crate: [dependencies] $key is used only by tests, benches or examples: move it to [dev-dependencies] ($manifest)" >&2
          fail=1
          continue
        fi
        ;;
      build)
        table="build-dependencies"
        where="build.rs"
        used_in "$name" "$dir/build.rs" && continue
        ;;
      dev)
        table="dev-dependencies"
        where="src/, tests/, benches/ or examples/"
        used_in "$name" "$dir/src" "$dir/tests" "$dir/benches" "$dir/examples" && continue
        ;;
    esac
    echo "unused-deps: $crate: [$table] $key is not used in $where: remove it ($manifest)" >&2
    fail=1
  done < <(deps_of "$manifest")
done

# Every [workspace.dependencies] entry is inherited by some member (`name = { workspace =
# true ... }` or `name.workspace = true`).
member_manifests=()
for dir in "${member_dirs[@]}"; do
  member_manifests+=("$dir/Cargo.toml")
done
while read -r key; do
  [ -n "$key" ] || continue
  checked=$((checked + 1))
  if ! grep -qE "^[[:space:]]*${key}[[:space:]]*(\.[[:space:]]*workspace|=[[:space:]]*\{[^}]*workspace[[:space:]]*=[[:space:]]*true)" \
    "${member_manifests[@]}"; then
    echo "unused-deps: [workspace.dependencies] $key is inherited by no member: remove it ($root/Cargo.toml)" >&2
    fail=1
  fi
done < <(awk '
  /^\[workspace\.dependencies\]/ { w = 1; next }
  /^\[/ { w = 0 }
  w && /^[[:space:]]*[A-Za-z0-9_-]+[[:space:]]*=/ { name = $0; sub(/^[[:space:]]*/, "", name); sub(/[[:space:]]*=.*$/, "", name); print name }
' "$root/Cargo.toml")

if [ "$fail" = 0 ]; then
  echo "unused-deps: $checked dependencies checked, each used where its table says (ignored: ${#IGNORED[@]})"
fi
exit "$fail"
