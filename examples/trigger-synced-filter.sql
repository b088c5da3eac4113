-- examples/trigger-synced-filter.sql: a counting filter kept in sync with a
-- table by statement-level triggers.
--
-- A `bloom` filter of a column goes stale as soon as a row is deleted or
-- updated: it cannot forget.  A `counting_bloom` can (bloom_remove_all), so
-- triggers can keep it equal to the filter of the rows the table holds.
-- Statement-level triggers with transition tables see all the rows a
-- statement changed at once: the filter row is rewritten once per
-- statement, never once per row, which matters because a filter is one
-- large value (a row-level trigger would write it, and its WAL and its
-- TOAST chunks, for every row).
--
-- What it shows, and checks at the end:
--   - after a mix of INSERT, UPDATE (of the column and of other columns),
--     DELETE, COPY and TRUNCATE statements, the kept filter equals
--     counting_bloom_agg over the table as it is, counter for counter;
--   - every email in the table is found (no false negative), and the cast
--     to bloom equals bloom_agg of the table in the same shape;
--   - the filter row was rewritten once per statement that changed emails.
--
-- Self-contained and deterministic; temporary tables and functions only.
-- Run: psql -v ON_ERROR_STOP=1 -f examples/trigger-synced-filter.sql

\set ON_ERROR_STOP 1
\pset footer off
SET client_min_messages = notice;
CREATE EXTENSION IF NOT EXISTS bloomfilter;

CREATE TEMP TABLE account (id int PRIMARY KEY, email text NOT NULL, visits int NOT NULL DEFAULT 0);

-- The filter of account.email, sized for 50,000 addresses at 1%, and how
-- many times the triggers rewrote it.
CREATE TEMP TABLE account_email_filter (f counting_bloom NOT NULL, rewrites int NOT NULL);
INSERT INTO account_email_filter VALUES (counting_bloom_empty(0.01, 50000), 0);

-- One function for the three statements: remove what the old rows had, add
-- what the new rows have.  An UPDATE that leaves an email as it was removes
-- and adds it back, which leaves its counters as they were; only rows whose
-- email changed are passed on.
CREATE FUNCTION pg_temp.account_email_sync() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
	removed text[];
	added text[];
BEGIN
	IF TG_OP = 'INSERT' THEN
		SELECT array_agg(email) INTO added FROM new_rows;
	ELSIF TG_OP = 'DELETE' THEN
		SELECT array_agg(email) INTO removed FROM old_rows;
	ELSE
		SELECT array_agg(o.email) FILTER (WHERE o.email IS DISTINCT FROM n.email),
			   array_agg(n.email) FILTER (WHERE o.email IS DISTINCT FROM n.email)
		INTO removed, added
		FROM old_rows o JOIN new_rows n USING (id);
	END IF;
	IF removed IS NOT NULL OR added IS NOT NULL THEN
		UPDATE account_email_filter
		SET f = bloom_add_all(bloom_remove_all(f, coalesce(removed, '{}')), coalesce(added, '{}')),
			rewrites = rewrites + 1;
	END IF;
	RETURN NULL;
END $$;

CREATE TRIGGER account_email_insert AFTER INSERT ON account
	REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION pg_temp.account_email_sync();
CREATE TRIGGER account_email_update AFTER UPDATE ON account
	REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION pg_temp.account_email_sync();
CREATE TRIGGER account_email_delete AFTER DELETE ON account
	REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION pg_temp.account_email_sync();

-- TRUNCATE has no transition table: it empties the filter in the same shape.
CREATE FUNCTION pg_temp.account_email_truncate() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
	UPDATE account_email_filter SET f = counting_bloom_empty(0.01, 50000), rewrites = rewrites + 1;
	RETURN NULL;
END $$;
CREATE TRIGGER account_email_truncate AFTER TRUNCATE ON account
	FOR EACH STATEMENT EXECUTE FUNCTION pg_temp.account_email_truncate();

-- The workload: 9 statements that change emails (and one that does not).
INSERT INTO account (id, email) SELECT i, 'user' || i || '@example.com' FROM generate_series(1, 30000) AS i;  -- 1
TRUNCATE account;                                                                                            -- 2
INSERT INTO account (id, email) SELECT i, 'user' || i || '@example.com' FROM generate_series(1, 40000) AS i;  -- 3
DELETE FROM account WHERE id % 3 = 0;                                                                        -- 4
UPDATE account SET email = 'renamed' || id || '@example.org' WHERE id % 5 = 0;                               -- 5
UPDATE account SET visits = visits + 1 WHERE id % 2 = 0;                 -- emails unchanged: no rewrite
UPDATE account SET email = upper(email) WHERE id BETWEEN 100 AND 20000;                                      -- 6
INSERT INTO account (id, email) SELECT i, 'late' || i || '@example.net' FROM generate_series(40001, 45000) AS i; -- 7
COPY account (id, email) FROM STDIN;                                                                         -- 8
45001	copied1@example.com
45002	copied2@example.com
45003	user7@example.com
\.
DELETE FROM account WHERE email LIKE 'late%' AND id % 2 = 1;                                                 -- 9

SELECT count(*) AS accounts, (SELECT rewrites FROM account_email_filter) AS filter_rewrites,
	(SELECT i."values" FROM account_email_filter, bloom_info(f) AS i) AS values_held
FROM account;

DO $$
DECLARE
	kept counting_bloom := (SELECT f FROM account_email_filter);
	rewrites int := (SELECT a.rewrites FROM account_email_filter a);
	missing bigint;
BEGIN
	IF kept <> (SELECT counting_bloom_agg(email, 0.01, 50000) FROM account) THEN
		RAISE EXCEPTION 'check failed: the kept filter differs from counting_bloom_agg of the table';
	END IF;
	IF kept::bloom <> (SELECT bloom_agg(email, 0.01, 50000) FROM account) THEN
		RAISE EXCEPTION 'check failed: the kept filter cast to bloom differs from bloom_agg of the table';
	END IF;
	SELECT count(*) INTO missing FROM account WHERE NOT kept @> email;
	IF missing <> 0 THEN
		RAISE EXCEPTION 'check failed: % emails of the table are not in the filter', missing;
	END IF;
	IF rewrites <> 9 THEN
		RAISE EXCEPTION 'check failed: the filter was rewritten % times for 9 statements that changed emails', rewrites;
	END IF;
	RAISE NOTICE 'checks passed: the kept filter is the filter of the table; 9 statements, 9 rewrites';
END $$;
