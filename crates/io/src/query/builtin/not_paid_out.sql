-- Balance transactions not yet paid out (no payout), per currency and status: the
-- balance Stripe still holds.
WITH g AS (
  SELECT currency, status, COUNT(*) AS transactions, SUM(net) AS net
  FROM balance_transactions
  WHERE payout IS NULL AND kind <> 'payout'
  GROUP BY currency, status
)
SELECT currency, status, transactions, net, money(net, currency) AS net_major
FROM g
ORDER BY currency, status
