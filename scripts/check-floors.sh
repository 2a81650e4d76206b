#!/usr/bin/env bash
# The floors the compiler keeps, checked where the compiler cannot say it by itself:
# - the product (`tieout`, normal dependencies) carries no server stack: no axum, and no
#   hyper or hyper-util built with their "server" feature (the client side stays: reqwest
#   and polars' object store use it);
# - the core crate's normal dependencies carry no runtime, network, dataframe, terminal or
#   keychain crate, so "the rules do no IO" cannot be broken by a `use`.
# Inside the root package, back-edges (app -> cli/tui, tui -> cli) are a test:
# tests/it/floors.rs.
set -euo pipefail
cd "$(dirname "$0")/.."
fail=0

product="$(cargo tree -p tieout -e normal --prefix none -f '{p} {f}' --offline 2>/dev/null || cargo tree -p tieout -e normal --prefix none -f '{p} {f}')"
if grep -qE '^axum ' <<<"$product"; then
  echo "floors: axum is a normal dependency of the tieout binary (dev tooling belongs in crates/testkit)" >&2
  fail=1
fi
if grep -E '^hyper(-util)? ' <<<"$product" | grep -q 'server'; then
  echo "floors: hyper or hyper-util is built with its server feature in the tieout binary" >&2
  grep -E '^hyper(-util)? ' <<<"$product" | sort -u >&2
  fail=1
fi

# The TUI's test harness (src/tui/{harness,sample,screenshots,svg}.rs) is behind the root
# package's `harness` feature, which only tieout-testkit (a dev-dependency) turns on.
if grep -E '^tieout v' <<<"$product" | grep -q 'harness'; then
  echo "floors: the tieout binary is built with the 'harness' feature (test tooling belongs to tests only)" >&2
  fail=1
fi

core="$(cargo tree -p tieout-core -e normal --prefix none -f '{p}' --offline 2>/dev/null || cargo tree -p tieout-core -e normal --prefix none -f '{p}')"
for banned in tokio reqwest ratatui crossterm polars keyring-core directories; do
  if grep -qE "^${banned} " <<<"$core"; then
    echo "floors: tieout-core depends on ${banned}; the core crate does no IO" >&2
    fail=1
  fi
done

if [ "$fail" = 0 ]; then
  echo "floors: product has no server stack and no test harness; core has no IO crates"
fi
exit "$fail"
