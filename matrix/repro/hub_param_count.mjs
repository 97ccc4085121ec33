// @huggingface/hub 2.17.5 parseSafetensorsMetadata counts aliased tensors.
//
//   STSPEC_MATRIX_ENV=.matrix/hf-hub-js node matrix/repro/hub_param_count.mjs
//
// Its header checks stop at "offsets within the file", so 1,000 tensors
// U8[1000] that all alias the same 1,000 bytes parse, and the parameter count
// (what a model page shows) is 1,000,000 for a 62 KB file.  Overlapping
// tensors and holes are accepted the same way (LAYOUT-OVERLAP, LAYOUT-HOLE).
import { createRequire } from "node:module";
import { resolve } from "node:path";

const require = createRequire(`${resolve(process.env.STSPEC_MATRIX_ENV ?? ".")}/`);
const hub = require("@huggingface/hub");

const header = {};
for (let i = 0; i < 1000; i++) header[`t${i}`] = { dtype: "U8", shape: [1000], data_offsets: [0, 1000] };
const text = new TextEncoder().encode(JSON.stringify(header));
const file = new Uint8Array(8 + text.length + 1000);
new DataView(file.buffer).setBigUint64(0, BigInt(text.length), true);
file.set(text, 8);

// Serves the file's byte ranges as the Hub would (206 + Content-Range); any
// other path (config.json) is "not found".
async function localFetch(url, init = {}) {
  const headers = new Headers({ ETag: '"local"' });
  if (!String(url).endsWith(".safetensors")) {
    headers.set("X-Error-Code", "EntryNotFound");
    return { ok: false, status: 404, url: "", headers, text: async () => "" };
  }
  const [, a, b] = /bytes=(\d+)-(\d+)/.exec(init.headers?.Range ?? "") ?? [0, 0, file.length - 1];
  const start = Number(a);
  const end = Math.min(Number(b), file.length - 1);
  headers.set("Content-Range", `bytes ${start}-${end}/${file.length}`);
  const body = file.slice(start, end + 1);
  return { ok: true, status: 206, url: "", headers, arrayBuffer: async () => body.buffer, text: async () => new TextDecoder().decode(body) };
}

const parsed = await hub.parseSafetensorsMetadata({
  repo: "local/model",
  path: "model.safetensors",
  hubUrl: "http://localhost",
  fetch: localFetch,
  computeParametersCount: true,
});
console.log(`file ${file.length} bytes, ${Object.keys(parsed.header).length} tensors over the same 1000 bytes`);
console.log(`parameterCount: ${JSON.stringify(parsed.parameterCount)}`);
