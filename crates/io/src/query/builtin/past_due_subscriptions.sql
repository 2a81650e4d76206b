-- Past-due subscriptions with the customer's email.
SELECT s.id AS subscription, s.customer, c.email, c.name, s.currency, s.unit_amount,
       s.current_period_end_utc AS period_end, s.latest_invoice
FROM subscriptions s
LEFT JOIN customers c ON c.id = s.customer
WHERE s.status = 'past_due'
ORDER BY s.current_period_end, s.id
