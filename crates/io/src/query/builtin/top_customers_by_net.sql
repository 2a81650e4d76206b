-- Top customers by net: captured minus refunded, the ten largest per currency (amounts
-- are never converted between currencies).
WITH n AS (
  SELECT customer, currency, COUNT(*) AS charges,
         SUM(amount_captured - amount_refunded) AS net
  FROM charges
  WHERE status = 'succeeded' AND customer IS NOT NULL
  GROUP BY customer, currency
), r AS (
  SELECT customer, currency, charges, net,
         ROW_NUMBER() OVER (PARTITION BY currency ORDER BY net DESC) AS rank
  FROM n
)
SELECT r.currency, r.rank, r.customer, c.email, r.charges, r.net,
       money(r.net, r.currency) AS net_major
FROM r
LEFT JOIN customers c ON c.id = r.customer
WHERE r.rank <= 10
ORDER BY r.currency, r.rank
