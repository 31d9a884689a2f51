-- When a worker last claimed one of the organisation's runs: the claim serves the organisation served least recently
-- first, so one organisation's backlog no longer holds every other organisation's runs back (src/runs/run-queue.ts).
ALTER TABLE organisations ADD COLUMN last_claimed_at timestamptz;
