// tests/parquet_duckdb/run.mjs - bloomkit's Parquet Bloom filters against a
// real reader and writer: DuckDB (npm @duckdb/node-api, pinned in
// package-lock.json).
//
//   node tests/parquet_duckdb/run.mjs path/to/bloomkit
//
// 1. bloomkit -> DuckDB: `bloomkit parquet write` makes files of several
//    types (several row groups each); DuckDB must read every row back
//    (count, sum / distinct count), report the same filter offsets and
//    lengths in parquet_metadata(), and parquet_bloom_probe() must never
//    exclude a value from a row group that holds it and must answer exactly as
//    `bloomkit parquet probe` for present and absent values alike.
// 2. DuckDB -> bloomkit: DuckDB writes files with types the shared fixtures
//    lack (DATE, TIMESTAMP, TIMESTAMPTZ, TIME, SMALLINT, UTINYINT, UBIGINT,
//    UUID, DECIMAL on INT32/INT64), 400 distinct values repeated so DuckDB
//    dictionary-encodes them (it writes filters only then); every value, given to `bloomkit parquet
//    probe` as the text DuckDB prints for it, must be found (no false
//    negative: the text was converted to the writer's bytes), and for the
//    types where DuckDB 1.5.6's probe is right (../shared/PARQUET.md §6:
//    not DECIMAL, not UUID; we found TIMESTAMP_MS wrong too) bloomkit's answers for absent values must equal
//    DuckDB's.
// Exit 0 when all checks pass, 1 on a failed check; prints one line per case.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';

const cli = process.argv[2];
if (!cli) {
  console.error('usage: node run.mjs path/to/bloomkit');
  process.exit(2);
}
const dir = mkdtempSync(join(tmpdir(), 'bloomkit-duckdb-'));
const instance = await DuckDBInstance.create(':memory:');
const db = await instance.connect();
let failures = 0;

function fail(message) {
  failures += 1;
  console.error(`FAIL ${message}`);
}
const quote = (s) => `'${String(s).replaceAll("'", "''")}'`;
async function rows(sql) {
  return (await db.runAndReadAll(sql)).getRowObjectsJS();
}
function bloomkit(args) {
  return execFileSync(cli, args, { encoding: 'utf8', maxBuffer: 1 << 28 });
}
/// `bloomkit parquet probe --json`: Map "value|row_group" -> excluded.
function bloomkitProbe(file, column, values) {
  const out = new Map();
  // Chunks keep the command line short.
  for (let i = 0; i < values.length; i += 200) {
    const lines = bloomkit(['parquet', 'probe', file, column, '--json', '--', ...values.slice(i, i + 200)])
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    for (const l of lines) {
      if (!l.summary) out.set(`${l.value}|${l.row_group}`, l.excluded && l.has_filter);
    }
  }
  return out;
}

// Deterministic pseudo-random numbers (xorshift), so every run checks the same values.
let state = 0x9e3779b97f4a7c15n;
function nextRandom() {
  state ^= (state << 13n) & 0xffffffffffffffffn;
  state ^= state >> 7n;
  state ^= (state << 17n) & 0xffffffffffffffffn;
  return state;
}

// ---- 1. files written by bloomkit, read by DuckDB ------------------------------------
const ROWS = 3000;
const PER_GROUP = 1000;
const writeCases = [
  { type: 'int64', sql: 'BIGINT', make: (i) => String((nextRandom() & 0xffffffffffffn) - 0x800000000000n) },
  { type: 'int32', sql: 'INTEGER', make: (i) => String(Number(nextRandom() % 4000000n) - 2000000) },
  { type: 'int16', sql: 'SMALLINT', make: (i) => String(Number(nextRandom() % 60000n) - 30000) },
  { type: 'uint64', sql: 'UBIGINT', make: (i) => String(nextRandom()) },
  { type: 'double', sql: 'DOUBLE', make: (i) => String(Number(nextRandom() % 1000000n) / 64) },
  { type: 'float', sql: 'FLOAT', make: (i) => String(Number(nextRandom() % 100000n) / 8) },
  { type: 'string', sql: 'VARCHAR', make: (i) => `key-${nextRandom() % 100000n}-é` },
  { type: 'date', sql: 'DATE', make: (i) => new Date(Number(nextRandom() % 20000n) * 86400000).toISOString().slice(0, 10) },
  { type: 'timestamp_us', sql: 'TIMESTAMPTZ', make: (i) => `${new Date(Number(nextRandom() % 2000000000000n)).toISOString().replace('Z', '')}Z` },
];

for (const c of writeCases) {
  const values = [];
  for (let i = 0; i < ROWS; i++) values.push(c.make(i));
  // absent candidates: fresh values not in the file
  const present = new Set(values);
  const absent = [];
  while (absent.length < 300) {
    const v = c.make(0);
    if (!present.has(v)) absent.push(v);
  }
  const keys = join(dir, `${c.type}.txt`);
  const file = join(dir, `${c.type}.parquet`);
  writeFileSync(keys, values.join('\n') + '\n');
  bloomkit(['parquet', 'write', keys, '-o', file, '--type', c.type, '--row-group-rows', String(PER_GROUP)]);

  const [{ n }] = await rows(`SELECT count(*) AS n FROM read_parquet(${quote(file)})`);
  if (Number(n) !== ROWS) fail(`${c.type}: DuckDB read ${n} rows, expected ${ROWS}`);
  const [{ d }] = await rows(`SELECT count(DISTINCT value) AS d FROM read_parquet(${quote(file)})`);
  const [{ e }] = await rows(
    `SELECT count(DISTINCT CAST(v AS ${c.sql})) AS e FROM (SELECT unnest(${'[' + [...present].map(quote).join(',') + ']'}) AS v)`,
  );
  if (Number(d) !== Number(e)) fail(`${c.type}: DuckDB sees ${d} distinct values, expected ${e}`);

  const listed = bloomkit(['parquet', 'list', file, '--json']).trim().split('\n').map((l) => JSON.parse(l));
  const meta = await rows(
    `SELECT row_group_id, bloom_filter_offset, bloom_filter_length FROM parquet_metadata(${quote(file)}) ORDER BY row_group_id`,
  );
  if (meta.length !== listed.length) fail(`${c.type}: DuckDB lists ${meta.length} chunks, bloomkit ${listed.length}`);
  meta.forEach((m, g) => {
    if (Number(m.bloom_filter_offset) !== listed[g].bloom_filter_offset || Number(m.bloom_filter_length) !== listed[g].bloom_filter_length) {
      fail(`${c.type} row group ${g}: DuckDB says filter at ${m.bloom_filter_offset}+${m.bloom_filter_length}, bloomkit ${listed[g].bloom_filter_offset}+${listed[g].bloom_filter_length}`);
    }
  });

  // DuckDB's probe vs bloomkit's, for a sample of present values and all absent ones.
  const sample = [...values.slice(0, 150), ...values.slice(PER_GROUP, PER_GROUP + 150), ...absent];
  const ours = bloomkitProbe(file, 'value', sample);
  let compared = 0;
  let excludedAbsent = 0;
  for (const [i, v] of sample.entries()) {
    const answers = await rows(
      `SELECT row_group_id, bloom_filter_excludes FROM parquet_bloom_probe(${quote(file)}, 'value', CAST(${quote(v)} AS ${c.sql}))`,
    );
    for (const a of answers) {
      const g = Number(a.row_group_id);
      const holds = values.slice(g * PER_GROUP, (g + 1) * PER_GROUP).includes(v);
      if (holds && a.bloom_filter_excludes) fail(`${c.type}: DuckDB excludes ${v} from row group ${g}, which holds it`);
      const mine = ours.get(`${v}|${g}`);
      if (mine !== a.bloom_filter_excludes) fail(`${c.type}: value ${v} row group ${g}: DuckDB excludes=${a.bloom_filter_excludes}, bloomkit ${mine}`);
      if (i >= 300 && a.bloom_filter_excludes) excludedAbsent += 1;
      compared += 1;
    }
  }
  // The filters work: at 1 % fpp nearly every absent value is excluded from every row group.
  const absentChecks = absent.length * (ROWS / PER_GROUP);
  if (excludedAbsent < absentChecks * 0.9) fail(`${c.type}: DuckDB excluded only ${excludedAbsent} of ${absentChecks} absent lookups`);
  console.log(`ok bloomkit->duckdb ${c.type}: ${ROWS} rows read, ${compared} probes agree, ${excludedAbsent}/${absentChecks} absent lookups excluded`);
}

// ---- 2. files written by DuckDB, probed by bloomkit -------------------------------------
const readCases = [
  { name: 'date', sql: 'DATE', expr: "DATE '2000-01-01' + (i * 7 % 9000)::INTEGER", reliable: true },
  { name: 'timestamp', sql: 'TIMESTAMP', expr: "TIMESTAMP '2001-02-03 04:05:06.789' + to_microseconds(i * 1234567)", reliable: true },
  { name: 'timestamptz', sql: 'TIMESTAMPTZ', expr: "TIMESTAMPTZ '2001-02-03 04:05:06+00' + to_microseconds(i * 7654321)", reliable: true },
  // DuckDB 1.5.6's probe disagrees with its own TIMESTAMP_MS filters in both
  // directions (it hashes the constant differently from the writer), while
  // every present value is found from its millisecond bytes: compare with
  // the file's bitset only.
  { name: 'timestamp_ms', sql: 'TIMESTAMP_MS', expr: "(TIMESTAMP '1969-12-01 00:00:00' + to_milliseconds(i * 98765))::TIMESTAMP_MS", reliable: false },
  { name: 'time', sql: 'TIME', expr: "TIME '00:00:00' + to_microseconds(i * 17000123)", reliable: true },
  { name: 'smallint', sql: 'SMALLINT', expr: '(i * 37 % 60000 - 30000)::SMALLINT', reliable: true },
  { name: 'utinyint', sql: 'UTINYINT', expr: '(i % 256)::UTINYINT', reliable: true },
  { name: 'ubigint', sql: 'UBIGINT', expr: '(18446744073709551615 - i * 1000003)::UBIGINT', reliable: true },
  { name: 'uuid', sql: 'UUID', expr: "('00000000-0000-4000-8000-' || lpad(printf('%x', i * 7919), 12, '0'))::UUID", reliable: false },
  { name: 'dec9', sql: 'DECIMAL(9,2)', expr: '((i * 7 - 5000) / 100)::DECIMAL(9,2)', reliable: false },
  { name: 'dec18', sql: 'DECIMAL(18,4)', expr: '((i * 123457 - 99999999) / 10000)::DECIMAL(18,4)', reliable: false },
];
for (const c of readCases) {
  const file = join(dir, `duckdb_${c.name}.parquet`);
  await db.run(
    `COPY (SELECT ${c.expr} AS x FROM (SELECT i % 400 AS i FROM range(0, 2000) t(i))) TO ${quote(file)} (FORMAT parquet, ROW_GROUP_SIZE 1000)`,
  );
  const present = (await rows(`SELECT DISTINCT CAST(x AS VARCHAR) AS v FROM read_parquet(${quote(file)})`)).map((r) => r.v);
  const missing = (
    await rows(
      `SELECT DISTINCT CAST(x AS VARCHAR) AS v FROM (SELECT ${c.expr} AS x FROM range(100000, 100300) t(i)) WHERE x NOT IN (SELECT x FROM read_parquet(${quote(file)}))`,
    )
  ).map((r) => r.v);
  const listed = bloomkit(['parquet', 'list', file, '--json']).trim().split('\n').map((l) => JSON.parse(l));
  if (!listed.every((l) => l.has_filter)) fail(`${c.name}: DuckDB wrote no filter (encoding fell back to PLAIN?)`);
  const ours = bloomkitProbe(file, 'x', [...present, ...missing]);
  // A present value must be possible in at least one row group (the one holding it).
  const groups = listed.length;
  let found = 0;
  for (const v of present) {
    let anywhere = false;
    for (let g = 0; g < groups; g++) anywhere ||= ours.get(`${v}|${g}`) === false;
    if (anywhere) found += 1;
    else fail(`${c.name}: bloomkit excludes present value '${v}' from every row group (text converted to the wrong bytes)`);
  }
  let agree = 0;
  let excluded = 0;
  for (const v of missing) {
    for (let g = 0; g < groups; g++) if (ours.get(`${v}|${g}`)) excluded += 1;
    if (!c.reliable) continue;
    const answers = await rows(
      `SELECT row_group_id, bloom_filter_excludes FROM parquet_bloom_probe(${quote(file)}, 'x', CAST(${quote(v)} AS ${c.sql}))`,
    );
    for (const a of answers) {
      const mine = ours.get(`${v}|${Number(a.row_group_id)}`);
      if (mine === a.bloom_filter_excludes) agree += 1;
      else fail(`${c.name}: absent '${v}' row group ${a.row_group_id}: DuckDB excludes=${a.bloom_filter_excludes}, bloomkit ${mine}`);
    }
  }
  if (missing.length > 0 && excluded < missing.length * groups * 0.9) {
    fail(`${c.name}: bloomkit excluded only ${excluded} of ${missing.length * groups} absent lookups`);
  }
  console.log(
    `ok duckdb->bloomkit ${c.name}: ${found}/${present.length} present values found, ${excluded}/${missing.length * groups} absent lookups excluded` +
      (c.reliable ? `, ${agree} answers equal DuckDB's probe` : " (DuckDB's probe is unreliable for this type: compared with the file's bitset only)"),
  );
}

rmSync(dir, { recursive: true, force: true });
if (failures > 0) {
  console.error(`${failures} check(s) failed`);
  process.exit(1);
}
console.log('all DuckDB round-trip checks passed');
