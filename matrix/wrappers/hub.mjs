// @huggingface/hub parseSafetensorsMetadata over HTTP (header-only), as its
// users call it for a file on the Hub: Node's own fetch against a real HTTP
// server on 127.0.0.1 (_range_server.py, the one the Python Hub client's row
// uses), which serves the file under test with the Hub's Range semantics.
// The library's requests (a `bytes=0-0` probe for the size and ETag, then
// the 8-byte length and the header as Range slices) are all its own, so a
// range-boundary bug shows.  Its SafetensorParseError (it rethrows JSON.parse
// failures as that) is a rejection, and so is the HubApiError of a 416 (a
// file shorter than the range it asks), as for the Python client.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { serve } from "./_protocol.mjs";

const env = `${resolve(process.env.STSPEC_MATRIX_ENV ?? ".")}/`;
const hub = createRequire(env)("@huggingface/hub");
const { version } = JSON.parse(readFileSync(`${env}node_modules/@huggingface/hub/package.json`, "utf8"));
const SERVER = join(dirname(fileURLToPath(import.meta.url)), "_range_server.py");

// Starts the server for one file; resolves to [endpoint, stop]; stop()
// resolves once the server has exited, so no process outlives the answer.
function startServer(path) {
  // -S: the server needs only the standard library; site would only slow the start
  const child = spawn(process.env.STSPEC_PYTHON ?? "python3", ["-S", SERVER, path], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  const exited = new Promise((done) => child.once("exit", done));
  const stop = () => {
    child.stdin.end();
    return exited;
  };
  return new Promise((ok, fail) => {
    child.on("error", fail);
    exited.then((code) => fail(new Error(`range server exited (${code}) before it served`)));
    createInterface({ input: child.stdout }).once("line", (url) => ok([url.trim(), stop]));
  });
}

async function read(path) {
  const [hubUrl, stop] = await startServer(path);
  try {
    const parsed = await hub.parseSafetensorsMetadata({ repo: "local/model", path: "model.safetensors", hubUrl });
    const { __metadata__: metadata = null, ...entries } = parsed.header;
    const tensors = {};
    for (const [name, info] of Object.entries(entries)) tensors[name] = { dtype: info.dtype, shape: info.shape };
    return { metadata, tensors };
  } finally {
    await stop();
  }
}

serve(
  {
    protocol: 2,
    name: "@huggingface/hub parseSafetensorsMetadata (HTTP, loopback)",
    version,
    capabilities: { header_only: true },
  },
  read,
  // HubApiError keeps Error's name: it is told by its class
  (error) => error?.name === "SafetensorParseError" || (error instanceof hub.HubApiError && error.statusCode === 416),
);
