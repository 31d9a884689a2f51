-- Whether a ledger row's tokens (and so its cost) are our estimate rather than the provider's count: an answer
-- without valid usage, or an attempt that was sent and never answered (a timeout, an abort, a connection lost after
-- sending), which the provider may bill and which is charged its estimated prompt. Budgets and usage count them alike.
ALTER TABLE model_calls ADD COLUMN tokens_estimated boolean NOT NULL DEFAULT false;
