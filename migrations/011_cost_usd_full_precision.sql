-- Costs are priced to 1e-10 USD (costUsd in src/llm/model-registry.ts), but numeric(14, 6) rounded each ledger row
-- to a micro-dollar: a short query embedding ($0.0000004) was recorded as free, and sums of rounded rows drifted
-- from what budgets and metrics were charged. Unconstrained numeric keeps the value as written; on PostgreSQL,
-- dropping the typmod is a catalog change that does not rewrite the table.
ALTER TABLE model_calls ALTER COLUMN cost_usd TYPE numeric;
ALTER TABLE matching_runs ALTER COLUMN cost_usd TYPE numeric;
