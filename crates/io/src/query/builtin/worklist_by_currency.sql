-- The dunning worklist's totals per currency: invoices and amount outstanding.
WITH t AS (
  SELECT currency, COUNT(*) AS invoices, SUM(amount_remaining) AS amount_remaining
  FROM worklist
  GROUP BY currency
)
SELECT currency, invoices, amount_remaining,
       money(amount_remaining, currency) AS amount_remaining_major
FROM t
ORDER BY amount_remaining DESC, currency
