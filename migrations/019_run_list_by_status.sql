-- Listing an organisation's runs of one status (GET /v1/matching-runs?status=failed), newest first: without it the
-- list read the organisation's whole history of runs to find the few of that status (src/runs/run-store.ts).
CREATE INDEX matching_runs_org_status_created ON matching_runs (org_id, status, created_at DESC, id DESC);
