// @huggingface/hub: parseSafetensorsMetadata on a local file.
//
//   STSPEC_MATRIX_ENV=.matrix/hf-hub-js node matrix/repro/open_hf_hub.mjs FILE
//
// The library fetches the header with HTTP Range requests; the fetch below
// answers them from FILE as the Hub does (206 + Content-Range), so the
// library's own code decides everything.  Prints the parsed header and the
// parameter count, then "accepted"; whatever it throws is left uncaught.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { resolve } from "node:path";

const require = createRequire(`${resolve(process.env.STSPEC_MATRIX_ENV ?? ".")}/`);
const hub = require("@huggingface/hub");
const file = readFileSync(process.argv[2]);

async function localFetch(_url, init = {}) {
  const range = /bytes=(\d+)-(\d+)/.exec(init.headers?.Range ?? "");
  const start = range ? Number(range[1]) : 0;
  const end = range ? Math.min(Number(range[2]), file.length - 1) : file.length - 1;
  const headers = new Headers({ ETag: '"local"', "Content-Range": `bytes ${start}-${end}/${file.length}` });
  if (start >= file.length) return { ok: false, status: 416, url: "", headers, text: async () => "" };
  const bytes = file.subarray(start, end + 1);
  const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length);
  const text = async () => new TextDecoder().decode(bytes);
  return { ok: true, status: 206, url: "", headers, arrayBuffer: async () => buffer, text };
}

const parsed = await hub.parseSafetensorsMetadata({
  repo: "local/model",
  path: "model.safetensors",
  hubUrl: "http://localhost",
  fetch: localFetch,
  computeParametersCount: true,
});
console.log(JSON.stringify(parsed.header).slice(0, 500));
console.log("parameterCount:", parsed.parameterCount);
console.log("accepted");
