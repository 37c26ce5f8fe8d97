-- Rate limits and key management: a tenant's and a key's own limit (NULL: the configured default;
-- 'unlimited' exempts them), the limiter's token buckets, and what an operator needs to manage keys:
-- an id to name a key by that reveals nothing of it, revocation, and when it was last used.
ALTER TABLE tenants ADD COLUMN rate_limit text;

ALTER TABLE api_keys
    ADD COLUMN id text GENERATED ALWAYS AS ('key_' || substr(key_hash, 1, 12)) STORED,
    ADD COLUMN rate_limit text,
    ADD COLUMN revoked_at timestamptz,
    ADD COLUMN last_used_at timestamptz;
CREATE UNIQUE INDEX api_keys_id ON api_keys (id);
CREATE INDEX api_keys_tenant ON api_keys (tenant_id, created_at);

-- One row per tenant (key_id '') and per key with a limit of its own, updated on every request.
-- Unlogged: a commit that wrote no WAL waits for no disk flush (bench/rate_limit.py measures the
-- difference); a crash empties the table, so limits restart from full buckets, which is harmless.
-- Room left in each page lets the updates stay HOT (no index change, little bloat).
CREATE UNLOGGED TABLE rate_limit_buckets (
    tenant_id    text NOT NULL,
    key_id       text NOT NULL,
    tokens       double precision NOT NULL,
    refilled_at  timestamptz NOT NULL,
    admitted     boolean NOT NULL,  -- the latest request's verdict, as RETURNING reports it
    PRIMARY KEY (tenant_id, key_id)
) WITH (fillfactor = 50);
