-- Fees by category x month x currency: the fees of the paid-out lines of every itemised
-- payout, grouped by the tie-out's month (payout arrival) and category.
WITH f AS (
  SELECT month, category, currency, COUNT(*) AS lines, SUM(fee) AS fee
  FROM payout_lines
  GROUP BY month, category, currency
)
SELECT month, category, currency, lines, fee, money(fee, currency) AS fee_major
FROM f
ORDER BY month, currency, category
