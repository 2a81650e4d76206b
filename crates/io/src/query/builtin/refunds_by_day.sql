-- Refunds by day (UTC) x currency: succeeded refunds and their total.
WITH r AS (
  SELECT strftime(created_utc, '%Y-%m-%d') AS day, currency, COUNT(*) AS refunds, SUM(amount) AS amount
  FROM refunds
  WHERE status = 'succeeded'
  GROUP BY strftime(created_utc, '%Y-%m-%d'), currency
)
SELECT day, currency, refunds, amount, money(amount, currency) AS amount_major
FROM r
ORDER BY day, currency
