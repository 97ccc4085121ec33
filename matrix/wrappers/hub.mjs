// @huggingface/hub parseSafetensorsMetadata on a local file (header-only).
// The library fetches the header with HTTP Range requests; a local fetch
// answers them from the file (206 + Content-Range, as the Hub does), so the
// library's own code decides everything.  Its SafetensorParseError (and its
// JSON.parse failures, which it rethrows as that) are rejections.
import { readFileSync } from "node:fs";
import { open, stat } from "node:fs/promises";
import { createRequire } from "node:module";
import { resolve } from "node:path";
import { serve } from "./_protocol.mjs";

const require = createRequire(`${resolve(process.env.STSPEC_MATRIX_ENV ?? ".")}/`);
const hub = require("@huggingface/hub");
const { version } = JSON.parse(
  readFileSync(`${resolve(process.env.STSPEC_MATRIX_ENV ?? ".")}/node_modules/@huggingface/hub/package.json`, "utf8"),
);

function localFetch(path) {
  return async (_url, init = {}) => {
    const size = (await stat(path)).size;
    const range = /bytes=(\d+)-(\d+)/.exec(init.headers?.Range ?? "");
    const start = range ? Number(range[1]) : 0;
    const end = range ? Math.min(Number(range[2]), size - 1) : size - 1;
    const headers = new Headers({ ETag: '"local"', "Content-Range": `bytes ${start}-${end}/${size}` });
    if (start >= size) {
      return { ok: false, status: 416, url: "", headers, arrayBuffer: async () => new ArrayBuffer(0), text: async () => "" };
    }
    const bytes = Buffer.alloc(end - start + 1);
    const handle = await open(path);
    try {
      await handle.read(bytes, 0, bytes.length, start);
    } finally {
      await handle.close();
    }
    return {
      ok: true,
      status: 206,
      url: "",
      headers,
      arrayBuffer: async () => bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length),
      text: async () => new TextDecoder().decode(bytes),
      json: async () => JSON.parse(new TextDecoder().decode(bytes)),
    };
  };
}

async function read(path) {
  const parsed = await hub.parseSafetensorsMetadata({
    repo: "local/model",
    path: "model.safetensors",
    hubUrl: "http://localhost",
    fetch: localFetch(path),
  });
  const { __metadata__: metadata = null, ...entries } = parsed.header;
  const tensors = {};
  for (const [name, info] of Object.entries(entries)) tensors[name] = { dtype: info.dtype, shape: info.shape };
  return { metadata, tensors };
}

serve(
  {
    protocol: 2,
    name: "@huggingface/hub parseSafetensorsMetadata",
    version,
    capabilities: { header_only: true },
  },
  read,
  (error) => error?.name === "SafetensorParseError",
);
