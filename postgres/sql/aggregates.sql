-- bloom_agg's arguments, NULLs, kinds and limits; the set aggregates.
SET client_min_messages = warning;
SET extra_float_digits = 0;

-- NULL values are skipped; no value at all gives NULL (as array_agg).
SELECT bloom_info(bloom_agg(x, 100)) ->> 'inserted' AS inserted
  FROM (VALUES (1), (NULL), (3), (NULL)) v(x);
SELECT bloom_agg(x, 100) IS NULL AS all_null FROM (VALUES (NULL::int), (NULL)) v(x);
SELECT bloom_agg(g, 100) IS NULL AS no_rows FROM generate_series(1, 0) g;

-- Capacity and FPR land in the header; the default FPR is 0.01, the default kind blocked.
SELECT bloom_info(bloom_agg(g, 5000, 0.001)) -> 'capacity' AS capacity,
       bloom_info(bloom_agg(g, 5000, 0.001)) -> 'target_fpr' AS fpr FROM generate_series(1, 10) g;
SELECT bloom_info(bloom_agg(g, 100)) -> 'target_fpr' AS default_fpr,
       bloom_info(bloom_agg(g, 100)) -> 'kind' AS default_kind FROM generate_series(1, 10) g;

-- Without a capacity (or with NULL) the filter is sized for the distinct keys.
SELECT bloom_info(bloom_agg(g % 300)) -> 'capacity' AS capacity,
       bloom_info(bloom_agg(g % 300)) -> 'inserted' AS inserted FROM generate_series(1, 3000) g;
SELECT bloom_info(bloom_agg(g % 300, NULL, 0.001)) -> 'capacity' AS capacity FROM generate_series(1, 3000) g;

-- Kinds, by the CLI's names or the library's.
SELECT k, bloom_info(bloom_agg(g, 1000, 0.01, k)) ->> 'kind' AS kind
  FROM (VALUES ('blocked'), ('standard'), ('split-block'), ('split_block_bloom'), ('counting')) v(k),
       generate_series(1, 10) g GROUP BY k ORDER BY k;
SELECT bloom_contains(bloom_agg(g, 1000, 0.01, 'split-block'), 5) FROM generate_series(1, 10) g;
-- Split-block filters hash with XXH64 (Parquet's hash), the others with XXH3-64.
SELECT bloom_info(bloom_agg(g, 1000, 0.01, 'split-block')) ->> 'hash' AS hash FROM generate_series(1, 10) g;

-- Bad arguments.
SELECT bloom_agg(g, 100, 0.01, 'ribbon') FROM generate_series(1, 10) g;
SELECT bloom_agg(g, 100, 0.01, 'nonsense') FROM generate_series(1, 10) g;
SELECT bloom_agg(g, 100, 1.5) FROM generate_series(1, 10) g;
SELECT bloom_agg(g, 100, 0) FROM generate_series(1, 10) g;
SELECT bloom_agg(g, -1) FROM generate_series(1, 10) g;
SELECT bloom_agg(x) FROM (VALUES (point(1, 2))) v(x);

-- A filter past PostgreSQL's 1 GB value limit is refused before it is built.
SELECT bloom_agg(g, 10000000000) FROM generate_series(1, 10) g;
SELECT bloom_agg(g, 1000000000, 0.0001) FROM generate_series(1, 10) g;

-- bloom_union_agg: the OR of filters of one shape; bloom_intersect_agg: the AND.
CREATE TEMP TABLE parts AS
  SELECT p, bloom_agg(g, 1000) AS f FROM generate_series(1, 600) g, LATERAL (SELECT g % 3 AS p) q GROUP BY p;
SELECT bloom_union_agg(f)::bytea = (SELECT bloom_agg(g, 1000)::bytea FROM generate_series(1, 600) g) AS union_is_whole
  FROM parts;
SELECT bloom_info(bloom_union_agg(f)) ->> 'inserted' AS inserted FROM parts;
SELECT bloom_contains(bloom_intersect_agg(f), 3) AS in_one_part_only FROM parts;
SELECT bloom_info(bloom_intersect_agg(f)) ->> 'inserted_accuracy' AS accuracy FROM parts;
SELECT bloom_union_agg(f) IS NULL AS no_filters FROM parts WHERE false;
SELECT bloom_union_agg(f) FROM (SELECT f FROM parts UNION ALL SELECT bloom_agg(g, 10) FROM generate_series(1, 5) g) u;

-- GROUP BY builds one filter per group.
SELECT p, bloom_contains(bloom_agg(g, 1000), 3) AS has_3
  FROM generate_series(1, 600) g, LATERAL (SELECT g % 3 AS p) q GROUP BY p ORDER BY p;
