#!/usr/bin/env sh
# Checks a fake-Stripe request log (the JSON lines written when the tests run with
# TIEOUT_FAKE_REQUEST_LOG=FILE) for requests that were not GET, outside the tests that are
# allowed to write (the refund approval gate and the fake server's own tests).
#
#   TIEOUT_FAKE_REQUEST_LOG=/tmp/fake-requests.jsonl cargo test
#   scripts/check-request-log.sh /tmp/fake-requests.jsonl
#
# ALLOW (an extended regex over the test name) overrides which tests may send non-GET
# requests. Exit 0: clean; 1: a non-GET request outside the allowed tests; 2: usage.
set -eu
log="${1:-}"
if [ -z "$log" ] || [ ! -f "$log" ]; then
  echo "usage: $0 REQUEST_LOG.jsonl (a file written via TIEOUT_FAKE_REQUEST_LOG)" >&2
  exit 2
fi
allow="${ALLOW:-(^|::)(fake_stripe|gate|refund[a-z_]*|approval[a-z_]*)(::|$)}"
total=$(grep -c '"method"' "$log" || true)
bad=$(grep '"method"' "$log" | grep -v '"method":"GET"' |
  while IFS= read -r line; do
    test_name=$(printf '%s\n' "$line" | sed -n 's/.*"test":"\([^"]*\)".*/\1/p')
    if ! printf '%s\n' "$test_name" | grep -Eq "$allow"; then
      printf '%s\n' "$line"
    fi
  done)
if [ -n "$bad" ]; then
  echo "check-request-log: requests other than GET outside the refund-gate tests:" >&2
  printf '%s\n' "$bad" >&2
  exit 1
fi
echo "check-request-log: $total requests, every one outside the allowed tests was GET"
