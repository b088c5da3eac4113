-- t/auto_prefilter.sql: the randomized differential test of
-- bloomfilter.auto_prefilter (run by t/001_auto_prefilter.pl, which
-- creates the tables l, big, f, fp, the other foreign tables with f's
-- columns and the collations first).
--
-- apf_query(seed, i, ftable) generates query i of a run: a join form, a key
-- pair, a local qual, a wrapper and sometimes a prepared statement, all
-- drawn from random() after setseed() of (seed, i), so one query is
-- reproduced from the two numbers; ftable is the foreign table with f's
-- columns that the query reads as f (f analyzed, or one never analyzed, one
-- with stale statistics, a partitioned table of foreign partitions).
-- apf_run(seed, n, ftable) runs n of them with the setting off and on,
-- compares the results as multisets, and returns lines for check_lines:
-- "CHECK pass|fail ...".
\set ON_ERROR_STOP 1

CREATE FUNCTION apf_pick(choices text[]) RETURNS text LANGUAGE sql AS
$$ SELECT choices[1 + floor(random() * array_length(choices, 1))::int] $$;

-- A generated query: its text, whether it is a prepared statement (then $1 is
-- an int4 parameter and arg its value) and under which plan_cache_mode, and
-- whether the setting must leave it alone (an anti-join, the foreign table on
-- the preserved side, a FULL join).
CREATE TYPE apf_case AS (query text, arg int4, cache_mode text, must_leave_alone bool, kind text);

CREATE FUNCTION apf_query(seed int, i int, f_table text) RETURNS apf_case LANGUAGE plpgsql AS $$
DECLARE
	c apf_case;
	pairs text[];
	j int;
	ftable text;
	eq text;
	lkey text;
	fkey text;
	lqual text;
	form text;
	cols text;
	q text;
BEGIN
	PERFORM setseed(((seed::int8 * 7919 + i) % 1999999) / 1000000.0 - 0.999999);
	-- the key pair: local expression, foreign column, foreign table
	pairs := ARRAY[
		ARRAY['l.k8', 'f.k8', 'f'], ARRAY['l.k4', 'f.k8', 'f'], ARRAY['l.k8', 'f.k4', 'f'],
		ARRAY['l.k2', 'f.k2', 'f'], ARRAY['l.kn', 'f.k4', 'f'], ARRAY['l.k8', 'f.kn', 'f'],
		ARRAY['l.k2', 'f.kn', 'f'], ARRAY['l.kt', 'f.kt', 'f'], ARRAY['l.kv', 'f.kt', 'f'],
		ARRAY['l.kt COLLATE "C"', 'f.kt', 'f'], ARRAY['l.kt COLLATE icu_det', 'f.kt', 'f'],
		ARRAY['l.kt COLLATE icu_ci', 'f.kt', 'f'], ARRAY['upper(l.kt) COLLATE icu_ci', 'f.ktc', 'f'],
		ARRAY['upper(l.kt)', 'f.ktc', 'f'], ARRAY['l.ku', 'f.ku', 'f'],
		ARRAY['l.k8', 'f.k8', 'fp'], ARRAY['l.k4', 'f.k8', 'fp'], ARRAY['l.kn', 'f.k8', 'fp'],
		ARRAY['l.k8', 'f.k8 + 0', 'f'], ARRAY['l.k8::float8', 'f.k8::float8', 'f']];
	j := 1 + floor(random() * array_length(pairs, 1))::int;
	lkey := pairs[j][1];
	fkey := pairs[j][2];
	ftable := CASE pairs[j][3] WHEN 'fp' THEN 'fp AS f' ELSE f_table || ' AS f' END;
	eq := format('%s = %s', fkey, lkey);
	IF pairs[j][3] = 'f' AND random() < 0.15 THEN
		eq := eq || ' AND ' || apf_pick(ARRAY['f.kt = l.kt', 'f.k4 = l.k4', 'f.ku = l.ku']);
		c.kind := 'composite ';
	ELSE
		c.kind := '';
	END IF;
	lqual := apf_pick(ARRAY['true', 'true', 'l.grp = 1', 'l.id < 150', 'l.k8 IS NOT NULL',
							'l.kt LIKE ''key-1%''', 'l.grp IN (0, 3)', 'l.k8 IS NULL', 'PARAM']);
	IF lqual = 'PARAM' THEN
		lqual := 'l.grp = $1';
		c.arg := floor(random() * 4)::int;
		c.cache_mode := apf_pick(ARRAY['force_generic_plan', 'force_custom_plan']);
	END IF;
	form := apf_pick(ARRAY['join', 'implicit', 'left', 'left-anti', 'left-fqual', 'right',
						   'left-wrong', 'right-wrong', 'full', 'in', 'any', 'exists',
						   'not-exists', 'not-in', 'three', 'nested-left', 'in-join']);
	c.kind := c.kind || form;
	c.must_leave_alone := form IN ('left-wrong', 'right-wrong', 'full', 'not-exists', 'not-in');
	cols := apf_pick(ARRAY['l.id AS lid, f.id AS fid', 'f.id, f.k8', 'l.*, f.id AS fid']);
	q := CASE form
		WHEN 'join' THEN format('SELECT %s FROM l JOIN %s ON %s WHERE %s', cols, ftable, eq, lqual)
		WHEN 'implicit' THEN format('SELECT %s FROM l, %s WHERE %s AND %s', cols, ftable, eq, lqual)
		WHEN 'left' THEN format('SELECT %s FROM l LEFT JOIN %s ON %s WHERE %s', cols, ftable, eq, lqual)
		WHEN 'left-anti' THEN format('SELECT l.id FROM l LEFT JOIN %s ON %s WHERE f.id IS NULL AND %s', ftable, eq, lqual)
		WHEN 'left-fqual' THEN format('SELECT %s FROM l LEFT JOIN %s ON %s AND f.grp < 5 AND %s', cols, ftable, eq, lqual)
		WHEN 'right' THEN format('SELECT %s FROM %s RIGHT JOIN l ON %s WHERE %s', cols, ftable, eq, lqual)
		WHEN 'left-wrong' THEN format('SELECT %s FROM %s LEFT JOIN l ON %s AND %s', cols, ftable, eq, lqual)
		WHEN 'right-wrong' THEN format('SELECT %s FROM l RIGHT JOIN %s ON %s AND %s', cols, ftable, eq, lqual)
		WHEN 'full' THEN format('SELECT %s FROM l FULL JOIN %s ON %s AND %s', cols, ftable, eq, lqual)
		WHEN 'in' THEN format('SELECT f.id FROM %s WHERE %s IN (SELECT %s FROM l WHERE %s)', ftable, fkey, lkey, lqual)
		WHEN 'any' THEN format('SELECT f.id, f.k8 FROM %s WHERE %s = ANY (SELECT %s FROM l WHERE %s)', ftable, fkey, lkey, lqual)
		WHEN 'exists' THEN format('SELECT f.id FROM %s WHERE EXISTS (SELECT 1 FROM l WHERE %s AND %s)', ftable, eq, lqual)
		WHEN 'not-exists' THEN format('SELECT f.id FROM %s WHERE NOT EXISTS (SELECT 1 FROM l WHERE %s AND %s)', ftable, eq, lqual)
		WHEN 'not-in' THEN format('SELECT f.id FROM %s WHERE %s NOT IN (SELECT %s FROM l WHERE %s)', ftable, fkey, lkey, lqual)
		WHEN 'three' THEN format('SELECT %s, l2.id AS l2id FROM l JOIN %s ON %s JOIN l l2 ON l2.id = l.id + 1 WHERE %s', cols, ftable, eq, lqual)
		WHEN 'nested-left' THEN format('SELECT l2.id AS l2id, l.id AS lid, f.id AS fid FROM l l2 LEFT JOIN (l JOIN %s ON %s) ON l.id = l2.id WHERE %s', ftable, eq, replace(lqual, 'l.', 'l2.'))
		WHEN 'in-join' THEN format('SELECT f.id FROM %s WHERE %s IN (SELECT %s FROM l JOIN l l2 ON l2.id = l.id WHERE %s)', ftable, fkey, lkey, lqual)
	END;
	-- wrappers: a subquery, a CTE, an aggregate, ORDER BY ... LIMIT
	CASE apf_pick(ARRAY['none', 'none', 'none', 'subquery', 'cte', 'count', 'limit'])
		WHEN 'subquery' THEN q := format('SELECT * FROM (%s) s', q); c.kind := c.kind || ' subquery';
		WHEN 'cte' THEN q := format('WITH s AS MATERIALIZED (%s) SELECT * FROM s', q); c.kind := c.kind || ' cte';
		WHEN 'count' THEN q := format('SELECT count(*) FROM (%s) s', q); c.kind := c.kind || ' count';
		WHEN 'limit' THEN q := format('SELECT * FROM (%s) s ORDER BY s::text LIMIT 40', q); c.kind := c.kind || ' limit';
		ELSE NULL;
	END CASE;
	IF c.cache_mode IS NOT NULL THEN
		c.kind := c.kind || ' ' || c.cache_mode;
	END IF;
	c.query := q;
	RETURN c;
END
$$;

-- The result of a query as a multiset: its row count and the md5 of its rows'
-- text forms, sorted.
CREATE FUNCTION apf_result(c apf_case, setting bool) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	result text;
BEGIN
	DEALLOCATE ALL;
	PERFORM set_config('bloomfilter.auto_prefilter', setting::text, true);
	IF c.cache_mode IS NULL THEN
		EXECUTE format($q$SELECT count(*) || ' rows, ' || coalesce(md5(string_agg(x::text, E'\n' ORDER BY x::text)), '-')
						 FROM (%s) x$q$, c.query) INTO result;
	ELSE
		PERFORM set_config('plan_cache_mode', c.cache_mode, true);
		EXECUTE format('PREPARE apf_statement(int4) AS %s', c.query);
		EXECUTE format('CREATE TEMP TABLE apf_rows AS EXECUTE apf_statement(%s)', c.arg);
		SELECT count(*) || ' rows, ' || coalesce(md5(string_agg(x::text, E'\n' ORDER BY x::text)), '-')
			FROM apf_rows x INTO result;
		DROP TABLE apf_rows;
		DEALLOCATE apf_statement;
		PERFORM set_config('plan_cache_mode', 'auto', true);
	END IF;
	RETURN result;
EXCEPTION WHEN OTHERS THEN
	-- an invalid generated query (a collation conflict) fails alike either way
	RETURN 'ERROR ' || SQLSTATE;
END
$$;

-- Whether the plan with the setting on has an automatic prefilter.
CREATE FUNCTION apf_prefiltered(c apf_case) RETURNS bool LANGUAGE plpgsql AS $$
DECLARE
	line text;
	found bool := false;
	query text := c.query;
BEGIN
	PERFORM set_config('bloomfilter.auto_prefilter', 'on', true);
	IF c.cache_mode IS NOT NULL THEN
		query := replace(query, '$1', c.arg::text);
	END IF;
	FOR line IN EXECUTE 'EXPLAIN (VERBOSE, COSTS OFF) ' || query LOOP
		found := found OR line LIKE '%bloom_auto_prefilter(%';
	END LOOP;
	RETURN found;
END
$$;

CREATE FUNCTION apf_run(seed int, n int, f_table text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
	c apf_case;
	off_result text;
	on_result text;
	prefiltered bool;
	i int;
	with_filter int := 0;
	errors int := 0;
	kinds_with_filter text[] := '{}';
BEGIN
	FOR i IN 1 .. n LOOP
		c := apf_query(seed, i, f_table);
		BEGIN
			off_result := apf_result(c, false);
			on_result := apf_result(c, true);
			prefiltered := off_result NOT LIKE 'ERROR%' AND apf_prefiltered(c);
		EXCEPTION WHEN OTHERS THEN
			RETURN NEXT format('CHECK fail %s seed %s query %s (%s) raised %s: %s; query: %s',
							   f_table, seed, i, c.kind, SQLSTATE, SQLERRM, c.query);
			CONTINUE;
		END;
		IF prefiltered THEN
			with_filter := with_filter + 1;
			IF NOT split_part(c.kind, ' ', 1) = ANY (kinds_with_filter) THEN
				kinds_with_filter := kinds_with_filter || split_part(c.kind, ' ', 1);
			END IF;
		END IF;
		IF off_result LIKE 'ERROR%' THEN
			errors := errors + 1;
		END IF;
		IF off_result IS DISTINCT FROM on_result THEN
			RETURN NEXT format('CHECK fail %s seed %s query %s (%s): off %s, on %s; query: %s',
							   f_table, seed, i, c.kind, off_result, on_result, c.query);
		ELSIF c.must_leave_alone AND prefiltered THEN
			RETURN NEXT format('CHECK fail %s seed %s query %s (%s) must be left alone but has a prefilter; query: %s',
							   f_table, seed, i, c.kind, c.query);
		ELSE
			RETURN NEXT format('CHECK pass %s query %s (%s): %s', f_table, i, c.kind, off_result);
		END IF;
	END LOOP;
	-- the test tests something: a good share of the queries had a prefilter
	RETURN NEXT format('CHECK %s %s seed %s: %s of %s queries had a prefilter (at least a quarter), forms: %s',
					   CASE WHEN with_filter * 4 >= n THEN 'pass' ELSE 'fail' END, f_table,
					   seed, with_filter, n, array_to_string(kinds_with_filter, ', '));
	RETURN NEXT format('CHECK %s %s seed %s: %s of %s generated queries were invalid (an error either way; at most 10%%)',
					   CASE WHEN errors * 10 <= n THEN 'pass' ELSE 'fail' END, f_table, seed, errors, n);
END
$$;
