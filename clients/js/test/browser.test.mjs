// The client in a real browser: Debian's Chromium, headless, loads the ES
// module build from a server on 127.0.0.1 that this test starts, rebuilds
// filters the server built (the golden vectors) from their values, probes
// them, and posts what it found back.  Skipped, and said so, where there is
// no Chromium.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, normalize } from "node:path";
import { fileURLToPath } from "node:url";
import { goldenPath } from "./golden.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const chromium = ["chromium", "chromium-browser", "google-chrome"].find((name) => spawnSync("sh", ["-c", `command -v ${name}`]).status === 0);
const TYPES = ["int8", "float8", "text", "bytea", "uuid", "bool"];

const PAGE = `<!doctype html><meta charset="utf-8"><title>bloomfilter</title><pre id="result">running</pre>
<script type="module">
import * as bf from "/dist/esm/index.js";
const hex = (h) => Uint8Array.from(h.match(/../g) ?? [], (b) => parseInt(b, 16));
const value = {
  int8: (v) => BigInt(v), float8: (v) => bf.Float8(Number(v)), text: (v) => v,
  bytea: (v) => hex(v.slice(2)), uuid: (v) => bf.Uuid(v), bool: (v) => v === "true",
};
const report = { userAgent: navigator.userAgent, filters: [] };
try {
  const golden = await (await fetch("/golden.json")).json();
  for (const entry of golden.filters) {
    if (!(entry.type in value)) continue;
    const values = entry.values.map(value[entry.type]);
    const filter = (entry.template ? bf.fromText(entry.template) : bf.empty(entry.p, entry.n)).addAll(values);
    const probes = entry.probes.map((p) => value[entry.type](p.value));
    const answers = filter.containsAll(probes);
    const stored = bf.fromText(entry.text);
    report.filters.push({
      type: entry.type, scheme: entry.hash_scheme, values: values.length,
      textEqual: filter.toText() === entry.text,
      readEqual: stored.equals(filter),
      probes: probes.length,
      agree: answers.filter((a, i) => a === entry.probes[i].contains).length,
      storedAgree: probes.filter((p, i) => stored.contains(p) === entry.probes[i].contains).length,
    });
  }
} catch (e) {
  report.error = String(e && e.stack || e);
}
document.getElementById("result").textContent = JSON.stringify(report);
await fetch("/result", { method: "POST", body: JSON.stringify(report) });
</script>`;

test("headless Chromium builds and probes filters byte for byte the server's", { skip: chromium ? false : "no Chromium (apt-get install chromium)", timeout: 90000 }, async (t) => {
  let resolveReport;
  const reported = new Promise((resolve) => (resolveReport = resolve));
  const server = createServer((req, res) => {
    if (req.method === "POST" && req.url === "/result") {
      let body = "";
      req.on("data", (chunk) => (body += chunk));
      req.on("end", () => {
        res.end("ok");
        resolveReport(JSON.parse(body));
      });
      return;
    }
    const path = req.url === "/" ? null : req.url === "/golden.json" ? goldenPath : join(root, normalize(req.url));
    if (path !== null && !(path === goldenPath || path.startsWith(join(root, "dist")))) {
      res.writeHead(404).end();
      return;
    }
    try {
      const body = path === null ? PAGE : readFileSync(path);
      const type = path === null ? "text/html" : path.endsWith(".js") ? "text/javascript" : "application/json";
      res.writeHead(200, { "content-type": type }).end(body);
    } catch {
      res.writeHead(404).end();
    }
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const started = Date.now();
  const profile = mkdtempSync(join(tmpdir(), "bloomfilter-chromium-"));
  const browser = spawn(chromium, [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
    "--no-first-run", "--disable-sync", "--disable-dev-shm-usage", `--user-data-dir=${profile}`,
    `http://127.0.0.1:${server.address().port}/`,
  ], { stdio: "ignore", detached: true });
  try {
    let timer;
    const report = await Promise.race([
      reported,
      new Promise((_, reject) => (timer = setTimeout(() => reject(new Error("Chromium did not report within 60 s")), 60000))),
    ]).finally(() => clearTimeout(timer));
    t.diagnostic(`reported after ${((Date.now() - started) / 1000).toFixed(1)} s`);
    assert.equal(report.error, undefined);
    assert.match(report.userAgent, /Chrome/);
    assert.equal(report.filters.length, 3 * TYPES.length);
    for (const f of report.filters) {
      assert.ok(f.textEqual, `${f.type} hash scheme ${f.scheme}: the browser's filter differs from the server's`);
      assert.ok(f.readEqual);
      assert.equal(f.agree, f.probes);
      assert.equal(f.storedAgree, f.probes);
    }
    t.diagnostic(`${report.userAgent.match(/HeadlessChrome\/[\d.]+|Chrome\/[\d.]+/)[0]}: ${report.filters.length} filters equal the server's, ` +
      `${report.filters.reduce((n, f) => n + f.agree, 0)} probes agree`);
  } finally {
    // the browser and its renderers: the process group it leads
    const exited = new Promise((resolve) => (browser.exitCode !== null ? resolve() : browser.on("exit", resolve)));
    try {
      process.kill(-browser.pid, "SIGTERM");
    } catch {}
    await exited;
    server.closeAllConnections();
    server.close();
    try {
      rmSync(profile, { recursive: true, force: true, maxRetries: 50, retryDelay: 200 });
    } catch (e) {
      t.diagnostic(`left ${profile} behind: ${e.message}`);
    }
  }
});
