-- A key's expiry (NULL: it never expires), and when a tenant was deleted (`memex tenants delete`):
-- its row stays, with its keys revoked, so that writes still in flight or queued for it are
-- refused rather than stored again (db/tenants.ensure_tenant). Nullable, no default: neither table
-- is rewritten (constant time).
ALTER TABLE api_keys ADD COLUMN expires_at timestamptz;
ALTER TABLE tenants ADD COLUMN deleted_at timestamptz;
