#!/usr/bin/env sh
# Checks a fake-Stripe request log (the JSON lines every fake server appends when the tests
# run with TIEOUT_FAKE_REQUEST_LOG=FILE; `test` is the test that started the fake) for
# requests that were not GET, outside the tests that are allowed to write: the refund
# approval gate (`tests/it/refund_gate.rs`), its batches of refunds
# (`tests/it/refund_batch.rs`) and the fake server's own tests of its write endpoints
# (`tests/it/fake_stripe.rs`).
#
#   TIEOUT_FAKE_REQUEST_LOG=/tmp/fake-requests.jsonl cargo test
#   scripts/check-request-log.sh /tmp/fake-requests.jsonl
#
# ALLOW (an extended regex matched against the test name, e.g. `refund_gate::a_test`)
# overrides which tests may send non-GET requests. Exit 0: clean; 1: a non-GET request
# outside the allowed tests, or an empty log (the variable did not reach the tests);
# 2: usage. `tests/it/hardening_readonly.rs` tests this script on crafted logs.
set -eu
log="${1:-}"
if [ -z "$log" ] || [ ! -f "$log" ]; then
  echo "usage: $0 REQUEST_LOG.jsonl (a file written via TIEOUT_FAKE_REQUEST_LOG)" >&2
  exit 2
fi
allow="${ALLOW:-^(refund_gate|refund_batch|fake_stripe)::}"
total=$(grep -c '"method"' "$log" || true)
if [ "$total" -eq 0 ]; then
  echo "check-request-log: $log holds no requests; was TIEOUT_FAKE_REQUEST_LOG set for the tests?" >&2
  exit 1
fi
writes=$(grep '"method"' "$log" | grep -vc '"method":"GET"' || true)
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
echo "check-request-log: $total requests; the $writes that were not GET all came from tests matching $allow"
