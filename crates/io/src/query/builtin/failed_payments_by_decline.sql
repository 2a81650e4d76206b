-- Failed payments by decline code x currency (the payment intent's decline code, else
-- the charge's failure code).
WITH d AS (
  SELECT COALESCE(pi.error_decline_code, c.failure_code, '(none)') AS decline_code,
         c.currency AS currency, c.amount AS amount
  FROM charges c
  LEFT JOIN payment_intents pi ON c.payment_intent = pi.id
  WHERE c.status = 'failed'
), g AS (
  SELECT decline_code, currency, COUNT(*) AS failed, SUM(amount) AS amount
  FROM d
  GROUP BY decline_code, currency
)
SELECT decline_code, currency, failed, amount, money(amount, currency) AS amount_major
FROM g
ORDER BY failed DESC, decline_code, currency
