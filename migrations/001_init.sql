-- The schema the v1 contract needs: tenants and keys, the candidate pool with its vectors,
-- roles, matching runs (which are also the work queue), their events, shortlists, audit trail,
-- and the ledger of every model call.
CREATE EXTENSION IF NOT EXISTS vector;

CREATE TABLE organisations (
  id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  name        text NOT NULL UNIQUE,
  created_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE api_keys (
  id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  org_id      uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  prefix      text NOT NULL UNIQUE,
  key_hash    text NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  revoked_at  timestamptz
);

CREATE TABLE candidates (
  id                uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  org_id            uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  external_id       text NOT NULL,
  -- Raw PII lives only in these columns and is returned only by the candidate routes.
  name              text,
  email             text,
  phone             text,
  resume            text NOT NULL,
  headline          text,
  location          text,
  years_experience  real,
  skills            text[] NOT NULL DEFAULT '{}',
  -- Lower-case canonical skill keys, for filters and the vocabulary.
  skill_keys        text[] NOT NULL DEFAULT '{}',
  -- The only resume text ever embedded, indexed, put in a prompt or logged.
  scrubbed_text     text NOT NULL,
  content_hash      text NOT NULL,
  search_tsv        tsvector GENERATED ALWAYS AS (to_tsvector('english', coalesce(headline, '') || ' ' || scrubbed_text)) STORED,
  created_at        timestamptz NOT NULL DEFAULT now(),
  updated_at        timestamptz NOT NULL DEFAULT now(),
  UNIQUE (org_id, external_id)
);
CREATE INDEX candidates_org_created ON candidates (org_id, created_at DESC, id DESC);
CREATE INDEX candidates_tsv ON candidates USING gin (search_tsv);
CREATE INDEX candidates_skill_keys ON candidates USING gin (skill_keys);

-- One vector per candidate and embedding model; an HNSW index per model (dimension is per model).
CREATE TABLE candidate_embeddings (
  candidate_id  uuid NOT NULL REFERENCES candidates(id) ON DELETE CASCADE,
  org_id        uuid NOT NULL,
  model         text NOT NULL,
  content_hash  text NOT NULL,
  embedding     vector NOT NULL,
  created_at    timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (candidate_id, model)
);
CREATE INDEX candidate_embeddings_org_model ON candidate_embeddings (org_id, model);

CREATE TABLE roles (
  id                    uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  org_id                uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  title                 text NOT NULL,
  description           text NOT NULL,
  must_have_skills      text[] NOT NULL DEFAULT '{}',
  nice_to_have_skills   text[] NOT NULL DEFAULT '{}',
  location              text,
  remote                boolean,
  seniority             text,
  min_years_experience  integer,
  created_at            timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX roles_org_created ON roles (org_id, created_at DESC, id DESC);

CREATE TABLE matching_runs (
  id                  uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  org_id              uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  role_id             uuid NOT NULL REFERENCES roles(id),
  status              text NOT NULL DEFAULT 'queued'
                      CHECK (status IN ('queued', 'running', 'succeeded', 'failed', 'cancelled')),
  engine              text NOT NULL CHECK (engine IN ('llm', 'heuristic')),
  params              jsonb NOT NULL,
  idempotency_key     text,
  request_hash        text,
  -- Bumped on every visible change: the ETag of the run's answer.
  version             integer NOT NULL DEFAULT 1,
  progress            jsonb NOT NULL,
  stop                jsonb,
  error               jsonb,
  -- The workflow context as of the last finished step: a resumed run starts here.
  checkpoint          jsonb,
  llm_calls           integer NOT NULL DEFAULT 0,
  prompt_tokens       bigint NOT NULL DEFAULT 0,
  completion_tokens   bigint NOT NULL DEFAULT 0,
  cost_usd            numeric(14, 6) NOT NULL DEFAULT 0,
  event_seq           integer NOT NULL DEFAULT 0,
  attempts            integer NOT NULL DEFAULT 0,
  lease_owner         text,
  lease_expires_at    timestamptz,
  cancel_requested_at timestamptz,
  created_at          timestamptz NOT NULL DEFAULT now(),
  started_at          timestamptz,
  finished_at         timestamptz
);
CREATE UNIQUE INDEX matching_runs_idempotency ON matching_runs (org_id, idempotency_key) WHERE idempotency_key IS NOT NULL;
CREATE INDEX matching_runs_org_created ON matching_runs (org_id, created_at DESC, id DESC);
CREATE INDEX matching_runs_claimable ON matching_runs (created_at) WHERE status IN ('queued', 'running');

CREATE TABLE run_events (
  run_id  uuid NOT NULL REFERENCES matching_runs(id) ON DELETE CASCADE,
  seq     integer NOT NULL,
  at      timestamptz NOT NULL DEFAULT now(),
  type    text NOT NULL,
  data    jsonb NOT NULL DEFAULT '{}',
  PRIMARY KEY (run_id, seq)
);

-- No foreign key to candidates: an erased candidate's entry keeps its id and scores.
CREATE TABLE shortlist_entries (
  run_id        uuid NOT NULL REFERENCES matching_runs(id) ON DELETE CASCADE,
  candidate_id  uuid NOT NULL,
  status        text NOT NULL CHECK (status IN ('scored', 'unscored')),
  external_id   text,
  name          text,
  subscores     jsonb,
  total_score   integer,
  rationale     text,
  evidence      jsonb,
  reason        text,
  -- Retrieval's fused score breaks ties between equal totals, deterministically.
  retrieval_score double precision NOT NULL DEFAULT 0,
  iteration     integer NOT NULL,
  created_at    timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (run_id, candidate_id)
);
CREATE INDEX shortlist_entries_candidate ON shortlist_entries (candidate_id);

-- Every model call attempt, successful or not: the source of usage, budgets and cost.
CREATE TABLE model_calls (
  id                 bigserial PRIMARY KEY,
  org_id             uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  run_id             uuid REFERENCES matching_runs(id) ON DELETE SET NULL,
  agent              text NOT NULL,
  model              text NOT NULL,
  prompt_tokens      integer NOT NULL DEFAULT 0,
  cached_tokens      integer NOT NULL DEFAULT 0,
  completion_tokens  integer NOT NULL DEFAULT 0,
  cost_usd           numeric(14, 6) NOT NULL DEFAULT 0,
  latency_ms         integer NOT NULL DEFAULT 0,
  outcome            text NOT NULL,
  request_id         text,
  attempt            integer NOT NULL DEFAULT 1,
  error              text,
  created_at         timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX model_calls_org_created ON model_calls (org_id, created_at);
CREATE INDEX model_calls_run ON model_calls (run_id);

-- The append-only audit trail of a run (scrubbed text only).
CREATE TABLE run_trace (
  id            bigserial PRIMARY KEY,
  run_id        uuid NOT NULL REFERENCES matching_runs(id) ON DELETE CASCADE,
  org_id        uuid NOT NULL,
  at            timestamptz NOT NULL DEFAULT now(),
  kind          text NOT NULL,
  candidate_id  uuid,
  data          jsonb NOT NULL
);
CREATE INDEX run_trace_run ON run_trace (run_id, id);
CREATE INDEX run_trace_at ON run_trace (at);
CREATE INDEX run_trace_candidate ON run_trace (candidate_id) WHERE candidate_id IS NOT NULL;
