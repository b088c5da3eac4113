--
-- setup_check: bloom_setup_check() and the warning of the install and
-- update scripts (src/distributed/setup.c, doc/distributed.md).  Without
-- Citus in the database nothing is missing, and neither CREATE EXTENSION nor
-- ALTER EXTENSION UPDATE warns (t/002_citus.pl checks the warning where
-- Citus is).
--

SELECT bloom_setup_check() IS NULL AS nothing_missing;
SELECT count(*) AS citus_here FROM pg_extension WHERE extname = 'citus';

-- (in a transaction rolled back, so the suite's objects stay; notices of
-- the cascade hidden, warnings shown)
BEGIN;
SET LOCAL client_min_messages = warning;
DROP EXTENSION bloomfilter CASCADE;
CREATE EXTENSION bloomfilter;
SELECT bloom_setup_check() IS NULL AS nothing_missing_after_create;
DROP EXTENSION bloomfilter;
CREATE EXTENSION bloomfilter VERSION '1.3';
ALTER EXTENSION bloomfilter UPDATE;
SELECT bloom_setup_check() IS NULL AS nothing_missing_after_update;
ROLLBACK;
