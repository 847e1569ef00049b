// A wrk-like load loop for scripts/probot-bench.sh: CONNECTIONS keep-alive connections post the
// same signed delivery (a fresh X-GitHub-Delivery id each time) to URL for SECONDS seconds and
// count the answers by status class. Prints one JSON line.
//   node load.mjs URL SECRET EVENT PAYLOAD_FILE SECONDS CONNECTIONS
import http from "node:http";
import { createHmac, randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";

const [url, secret, event, file, seconds = "10", connections = "16"] = process.argv.slice(2);
const body = readFileSync(file);
const signature = "sha256=" + createHmac("sha256", secret).update(body).digest("hex");
const agent = new http.Agent({ keepAlive: true, maxSockets: Number(connections) });
const target = new URL(url);
const counts = { "2xx": 0, "4xx": 0, "5xx": 0, other: 0, errors: 0 };
const latencies = [];
const end = Date.now() + Number(seconds) * 1000;

function post() {
  return new Promise((resolve) => {
    const started = process.hrtime.bigint();
    const req = http.request(
      {
        host: target.hostname, port: target.port, path: target.pathname, method: "POST", agent,
        headers: {
          "content-type": "application/json", "content-length": body.length,
          "x-github-event": event, "x-github-delivery": randomUUID(),
          "x-hub-signature-256": signature,
        },
      },
      (res) => {
        res.resume();
        res.on("end", () => {
          const c = Math.floor(res.statusCode / 100);
          counts[c === 2 ? "2xx" : c === 4 ? "4xx" : c === 5 ? "5xx" : "other"]++;
          latencies.push(Number(process.hrtime.bigint() - started) / 1e6);
          resolve();
        });
      },
    );
    req.on("error", () => { counts.errors++; resolve(); });
    req.end(body);
  });
}

async function worker() {
  while (Date.now() < end) await post();
}

const t0 = Date.now();
await Promise.all(Array.from({ length: Number(connections) }, worker));
const wall = (Date.now() - t0) / 1000;
latencies.sort((a, b) => a - b);
const total = latencies.length;
const p = (q) => latencies[Math.min(total - 1, Math.floor(q * total))]?.toFixed(2);
console.log(JSON.stringify({
  url, requests: total, seconds: wall, rps: Math.round(total / wall),
  rps_2xx: Math.round(counts["2xx"] / wall), ...counts, p50_ms: p(0.5), p99_ms: p(0.99),
}));
agent.destroy();
