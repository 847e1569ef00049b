// The probot side of scripts/probot-bench.sh: a Probot app (probot 14, createNodeMiddleware)
// that listens to `issues.labeled` and does nothing else, on PORT with the webhook SECRET.
// Probot verifies the signature and parses the event as kotef does at its edge.
import { createServer } from "node:http";
import { generateKeyPairSync } from "node:crypto";
import { Probot, createNodeMiddleware } from "probot";

const port = Number(process.env.PORT || 3000);
const { privateKey } = generateKeyPairSync("rsa", {
  modulusLength: 2048,
  privateKeyEncoding: { type: "pkcs1", format: "pem" },
  publicKeyEncoding: { type: "spki", format: "pem" },
});
const probot = new Probot({
  appId: 1,
  privateKey,
  secret: process.env.SECRET,
  logLevel: "fatal",
});
const app = (app) => {
  app.on("issues.labeled", async () => {});
};
const middleware = await createNodeMiddleware(app, { probot, webhooksPath: "/webhook" });
createServer((req, res) => {
  middleware(req, res, () => {
    res.writeHead(404);
    res.end();
  });
}).listen(port, "127.0.0.1", () => console.log(`probot listening on ${port}`));
