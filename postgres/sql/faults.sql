-- Damaged and lying values give a clean ERROR with the library's message.
SET client_min_messages = warning;
CREATE TEMP TABLE good AS SELECT bloom_agg(g, 1000)::bytea AS b FROM generate_series(1, 100) g;

-- Bad magic, truncated header, truncated payload.
SELECT set_byte(b, 0, 0)::bloomfilter FROM good;
SELECT substr(b, 1, 40)::bloomfilter FROM good;
SELECT substr(b, 1, length(b) - 1)::bloomfilter FROM good;
-- A flipped payload bit: the payload checksum catches it.
SELECT set_byte(b, length(b) - 1, get_byte(b, length(b) - 1) # 1)::bloomfilter FROM good;
-- A flipped header field (capacity): the header checksum catches it.
SELECT set_byte(b, 40, get_byte(b, 40) # 1)::bloomfilter FROM good;
-- An unknown version.
SELECT set_byte(b, 8, 99)::bloomfilter FROM good;
-- Extra bytes after the payload.
SELECT (b || '\x00'::bytea)::bloomfilter FROM good;
-- The same through the text input.
SELECT encode(set_byte(b, 0, 0), 'hex')::bloomfilter FROM good;

-- A cancelled aggregate stops (statement_timeout).
SET statement_timeout = '200ms';
SELECT bloom_agg(g, 1000000) IS NULL FROM generate_series(1, 1000000000) g;
RESET statement_timeout;

-- Nothing in the extension is SECURITY DEFINER.
SELECT count(*) AS security_definer FROM pg_proc p JOIN pg_depend d ON d.objid = p.oid
  JOIN pg_extension e ON d.refobjid = e.oid WHERE e.extname = 'bloomkit' AND p.prosecdef;
