-- Payouts with their tie-out verdict (the snapshot holds no bank trace id: Stripe's
-- trace_id is not cached; statement_descriptor is what the bank line shows).
SELECT t.payout, t.month, p.arrival_date_utc AS arrival, p.status, t.kind, t.verdict,
       t.currency, t.amount, money(t.amount, t.currency) AS amount_major,
       t.lines, t.difference, p.statement_descriptor
FROM payout_tieout t
JOIN payouts p ON p.id = t.payout
ORDER BY p.arrival_date, t.payout
