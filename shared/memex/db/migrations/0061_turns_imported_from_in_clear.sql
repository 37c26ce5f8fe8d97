-- memex: concurrently
-- A user's erasure moves to digests what a version between 0056 and 0058 rolled back onto the database wrote in
-- clear, tenant-wide (db/erasure.py user_chunk): a turn's `imported_from` may name the erased user's turn from
-- another user's row. Once 0059 has run no row holds one, unless such a version wrote it since: this index holds
-- only those rows, so the erasure's statement reads none of the tenant's turns to find none (without it, a scan
-- of every turn of the tenant, about 0.8 s a million turns, in the erasure's last transaction). Built without
-- blocking the turns' writes.
DROP INDEX CONCURRENTLY IF EXISTS turns_imported_from_in_clear;
CREATE INDEX CONCURRENTLY turns_imported_from_in_clear ON turns (tenant_id) WHERE imported_from IS NOT NULL;
