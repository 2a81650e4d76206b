-- Disputes by reason and status, per currency.
WITH g AS (
  SELECT COALESCE(reason, '(none)') AS reason, status, currency,
         COUNT(*) AS disputes, SUM(amount) AS amount
  FROM disputes
  GROUP BY COALESCE(reason, '(none)'), status, currency
)
SELECT reason, status, currency, disputes, amount, money(amount, currency) AS amount_major
FROM g
ORDER BY disputes DESC, reason, status, currency
