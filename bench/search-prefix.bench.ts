// bench:search-prefix: what an FTS5 prefix index would cost and buy (issue 16, search), to decide
// between it and search.ts's exact-first form. The newest SAMPLE messages of the store benchmark's
// database (bench/support/big-db.ts, opened read-only) are indexed into fresh FTS5 tables with the
// app's tokenizer, contentless (the index alone is measured), once per prefix setting: none (the
// app's table), prefix='3', prefix='3 4 5 6' and prefix='2 3 4 5 6 7 8'. For each: the index size
// (MB, and MB per million messages), the build (bulk, 500 messages per transaction) and append (10
// messages per transaction, as the search indexer's batches) CPU per message, and the median of 7
// runs of a page query (LIMIT 101, newest first) for a typed common prefix ("functi", "functio",
// "conf", "fun") and the exact common word ("function"). Query times grow with the sample (the
// prefix form merges every posting of the words it starts): multiply by 2.11 M / SAMPLE for the
// store benchmark's database. Prints ONE JSON line. BENCH_SAMPLE (default 200,000).
import Database from "better-sqlite3";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { prepareConnection } from "../app/main/store/open-database.ts";
import { bigDatabase } from "./support/big-db.ts";

const SAMPLE = Number(process.env.BENCH_SAMPLE ?? 200_000);
const SETTINGS = ["", "3", "3 4 5 6", "2 3 4 5 6 7 8"];
const QUERIES = { functi: '"functi"*', functio: '"functio"*', conf: '"conf"*', fun: '"fun"*', function: '"function"' };
const log = (line: string) => process.stderr.write(`${line}\n`);
const round = (n: number, digits = 1) => Number(n.toFixed(digits));
const cpuUs = () => {
  const u = process.threadCpuUsage();
  return u.user + u.system;
};

const big = await bigDatabase(log);
const source = new Database(path.join(big.dataDir, "lathe.db"), { readonly: true, fileMustExist: true });
prepareConnection(source);
const rows = (source.prepare("SELECT id, text FROM message_text ORDER BY id DESC LIMIT ?").all(SAMPLE) as { id: number; text: string }[]).reverse();
source.close();
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "lathe-bench-prefix-"));
const results: Record<string, unknown>[] = [];
try {
  for (const prefix of SETTINGS) {
    const db = new Database(path.join(dir, `${prefix.replace(/ /g, "-") || "none"}.db`));
    db.pragma("journal_mode = WAL");
    db.pragma("synchronous = NORMAL");
    db.exec(`CREATE VIRTUAL TABLE f USING fts5(text, content = '', tokenize = 'unicode61 remove_diacritics 2'${prefix ? `, prefix = '${prefix}'` : ""})`);
    const insert = db.prepare("INSERT INTO f(rowid, text) VALUES (?, ?)");
    const batches = (list: typeof rows, size: number) => {
      for (let i = 0; i < list.length; i += size) db.transaction(() => list.slice(i, i + size).forEach((r) => insert.run(r.id, r.text)))();
    };
    const bulk = rows.slice(0, -2000);
    const tail = rows.slice(-2000);
    let c = cpuUs();
    batches(bulk, 500);
    const buildCpuUs = (cpuUs() - c) / bulk.length;
    c = cpuUs();
    batches(tail, 10);
    const appendCpuUs = (cpuUs() - c) / tail.length;
    db.exec("INSERT INTO f(f) VALUES ('optimize')");
    const indexMB = (db.prepare("SELECT sum(length(block)) AS bytes FROM f_data").get() as { bytes: number }).bytes / 1048576;
    const page = db.prepare("SELECT rowid FROM f WHERE f MATCH ? ORDER BY rowid DESC LIMIT 101");
    const queryMs = Object.fromEntries(
      Object.entries(QUERIES).map(([name, query]) => {
        const times: number[] = [];
        for (let i = 0; i < 7; i++) {
          const t = performance.now();
          page.all(query);
          times.push(performance.now() - t);
        }
        return [name, round(times.sort((a, b) => a - b)[3]!, 2)];
      }),
    );
    db.close();
    const result = {
      prefix: prefix || "none",
      indexMB: round(indexMB),
      mbPerMillionMessages: Math.round((indexMB / rows.length) * 1e6),
      buildCpuUsPerMessage: round(buildCpuUs),
      appendCpuUsPerMessage: round(appendCpuUs),
      queryMs,
    };
    log(JSON.stringify(result));
    results.push(result);
  }
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
console.log(JSON.stringify({ sampleMessages: rows.length, settings: results, loadAverage: os.loadavg().map((l) => round(l)) }));
