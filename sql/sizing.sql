--
-- Planning a filter before building one.
--
--   bloom_optimal(p, n)          m, k, bytes and bits per item of bloom_empty(p, n)
--   bloom_expected_fpr(m, k, n)  classic (1 - e^(-kn/m))^k and the Goel-Gupta
--                                bound (1 - e^(-k(n + 0.5)/(m - 1)))^k
--

--
-- bloom_optimal
--
-- the textbook example: 1% at 100000 values is 958506 bits and 7 probes
SELECT * FROM bloom_optimal(0.01, 100000);

-- the plan is exactly what bloom_empty builds, over a grid of p and n
-- (expected: no rows)
SELECT p, n, o.m, o.k, o.bytes, i.m AS built_m, i.k AS built_k, i.bytes AS built_bytes
FROM unnest(ARRAY[0.5, 0.1, 0.01, 0.001, 1e-4, 1e-6, 1e-9, 1e-19]) AS p,
	unnest(ARRAY[1, 2, 7, 1000, 100000, 1000000]::int8[]) AS n,
	LATERAL bloom_optimal(p, n) AS o,
	LATERAL bloom_info(bloom_empty(p, n)) AS i
WHERE (o.m, o.k, o.bytes) IS DISTINCT FROM (i.m, i.k, i.bytes)
	OR o.bits_per_item <> o.m::float8 / n;

-- the sizing table of the README (bits per item and k against p)
SELECT p, round(bits_per_item::numeric, 2) AS bits_per_item, k,
	bytes AS bytes_for_1e6, round((e.classic * 100)::numeric, 4) AS percent_at_capacity
FROM unnest(ARRAY[0.1, 0.01, 0.001, 0.0001]) AS p,
	LATERAL bloom_optimal(p, 1000000) AS o,
	LATERAL bloom_expected_fpr(o.m, o.k, 1000000) AS e;

-- the largest plan is the largest filter (m = 8589934400, just under 1 GB);
-- one more value and it is too large
SELECT m, k, bytes FROM bloom_optimal(0.5, 5954088810);
SELECT e.* FROM error_of('SELECT bloom_optimal(0.5, 5954088811)') AS e;

--
-- bloom_expected_fpr
--
SELECT * FROM bloom_expected_fpr(958506, 7, 100000);
-- the classic estimate at the planned capacity is close to the target
SELECT round(classic::numeric, 6) AS classic, round(goel_gupta_bound::numeric, 6) AS bound
FROM bloom_optimal(0.01, 100000) AS o, LATERAL bloom_expected_fpr(o.m, o.k, 100000);
-- against values computed independently (python3 decimal, 40 digits):
-- relative error below 1e-12 (expected: all true)
SELECT m, k, n,
	abs(classic / want_classic - 1) < 1e-12 AS classic_ok,
	abs(goel_gupta_bound / want_bound - 1) < 1e-12 AS bound_ok
FROM (VALUES
	(958506, 7, 100000, 0.01003920958175812241, 0.01003949790782511546),
	(958506, 7, 200000, 0.1574528522697232936, 0.1574545763177259088),
	(1000, 1, 1000, 0.6321205588285576784, 0.6326725158759811597),
	(3, 1, 1, 0.2834686894262107496, 0.5276334472589852929),
	(1000000000, 1, 1, 9.999999995000000002e-10, 1.500000000375e-9)
) AS v(m, k, n, want_classic, want_bound),
	LATERAL bloom_expected_fpr(m, k, n);
-- edges: nothing added (no false positives; the bound stays above 0),
-- m = 1 (the bound is 1), a saturated plan
SELECT m, k, n, classic, goel_gupta_bound
FROM (VALUES (64::int8, 2, 0::int8), (1, 3, 5), (64, 3, 100000)) AS v(m, k, n),
	LATERAL bloom_expected_fpr(m, k, n);
-- the bound is never below the classic estimate, and both grow with n
-- (expected: no rows)
SELECT n, e.*
FROM generate_series(0, 300000, 5000) AS n,
	LATERAL bloom_expected_fpr(958506, 7, n) AS e,
	LATERAL bloom_expected_fpr(958506, 7, n + 5000) AS next
WHERE e.goel_gupta_bound < e.classic
	OR next.classic <= e.classic OR next.goel_gupta_bound <= e.goel_gupta_bound;

--
-- Errors: the same SQLSTATEs as bloom_empty and bloom_empty_mk
--
SELECT query, e.*
FROM (VALUES
	('SELECT bloom_optimal(0, 100)'),
	('SELECT bloom_optimal(1, 100)'),
	('SELECT bloom_optimal(-1, 100)'),
	('SELECT bloom_optimal(''NaN'', 100)'),
	('SELECT bloom_optimal(''Infinity'', 100)'),
	('SELECT bloom_optimal(0.01, 0)'),
	('SELECT bloom_optimal(0.01, -1)'),
	('SELECT bloom_optimal(1e-25, 100)'),
	('SELECT bloom_optimal(1e-10, 10000000000)'),
	('SELECT bloom_expected_fpr(0, 3, 10)'),
	('SELECT bloom_expected_fpr(-1, 3, 10)'),
	('SELECT bloom_expected_fpr(18, 0, 10)'),
	('SELECT bloom_expected_fpr(18, 65, 10)'),
	('SELECT bloom_expected_fpr(18, -1, 10)'),
	('SELECT bloom_expected_fpr(18, 3, -1)'),
	('SELECT bloom_expected_fpr(8589934401, 1, 10)'),
	('SELECT bloom_expected_fpr(8589934400, 1, 10)')
) AS v(query), LATERAL error_of(query) AS e;

-- the same errors with their details and hints
SELECT bloom_optimal('NaN', 100);
SELECT bloom_optimal(0.01, 0);
SELECT bloom_optimal(1e-25, 100);
SELECT bloom_optimal(1e-10, 10000000000);
SELECT bloom_expected_fpr(18, 65, 10);
SELECT bloom_expected_fpr(18, 3, -1);
SELECT bloom_expected_fpr(9000000000, 1, 10);

--
-- NULLs: both are STRICT, so any NULL argument gives NULL
--
SELECT bloom_optimal(NULL, 100) IS NULL AS optimal_p_null,
	bloom_optimal(0.01, NULL) IS NULL AS optimal_n_null,
	bloom_expected_fpr(NULL, 7, 100) IS NULL AS fpr_m_null,
	bloom_expected_fpr(958506, NULL, 100) IS NULL AS fpr_k_null,
	bloom_expected_fpr(958506, 7, NULL) IS NULL AS fpr_n_null;
SELECT p.proname, p.proisstrict, p.provolatile, p.proparallel
FROM pg_proc p
WHERE p.proname IN ('bloom_optimal', 'bloom_expected_fpr')
ORDER BY p.proname;
