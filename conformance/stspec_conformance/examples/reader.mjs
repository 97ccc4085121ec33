#!/usr/bin/env node
// A small safetensors reader and writer in Node.js that speaks the conformance
// suite's command protocol 2 (see docs/reference/command-protocol.md):
//
//   node reader.mjs FILE            exit 0 + {"result": "accepted", ...}
//                                   or exit 1 + {"result": "rejected", "rule", "reason"}
//   node reader.mjs --write OUT     JSON request on stdin -> OUT; exit 0 + {"result": "written"}
//                                   or exit 1 + {"result": "refused", "reason"}
//   node reader.mjs --describe      {"protocol": 2, "name", "version", "capabilities"}
//
//   pytest conformance --impl="cmd:node conformance/stspec_conformance/examples/reader.mjs"
//
// It is honest rather than strict: the header goes through JSON.parse, so it
// cannot see duplicate keys (the last one wins), lone surrogate escapes, or
// integers written as 4.0; numbers above 2^53 are rejected because a double
// cannot hold them exactly; whitespace around the object is accepted.  Its
// real results are recorded in conformance/baselines/node-example.txt.
// A rejection names the spec rule id (for --check-rules).  Every other failure
// (a bug, an uncaught error, Node itself failing) prints no answer and is a
// crash, whatever the exit status.

import { closeSync, fstatSync, openSync, readSync, renameSync, writeFileSync, unlinkSync, readFileSync } from "node:fs";
import { createHash } from "node:crypto";

const MAX_HEADER = 100_000_000n;
const U64_MAX = (1n << 64n) - 1n;
// Declaration order is the canonical writer's (descending) sort order.
const DTYPES = [
  ["BOOL", 8], ["F4", 4], ["F6_E2M3", 6], ["F6_E3M2", 6], ["U8", 8], ["I8", 8],
  ["F8_E5M2", 8], ["F8_E4M3", 8], ["F8_E8M0", 8], ["F8_E4M3FNUZ", 8], ["F8_E5M2FNUZ", 8],
  ["I16", 16], ["U16", 16], ["F16", 16], ["BF16", 16], ["I32", 32], ["U32", 32],
  ["F32", 32], ["C64", 64], ["F64", 64], ["I64", 64], ["U64", 64],
];
const BITS = new Map(DTYPES);
const RANK = new Map(DTYPES.map(([name], index) => [name, index]));

class Rejected extends Error {
  constructor(rule, message) {
    super(message);
    this.rule = rule;
  }
}

function reject(rule, message) {
  throw new Rejected(rule, message);
}

function readAt(fd, position, length) {
  const buffer = Buffer.alloc(length);
  let done = 0;
  while (done < length) {
    const n = readSync(fd, buffer, done, length - done, position + done);
    if (n === 0) break;
    done += n;
  }
  return buffer.subarray(0, done);
}

// Nesting counts everywhere, unknown members included (JSON.parse has no limit).
const MAX_DEPTH = 127;

function checkDepth(text) {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === "{" || c === "[") {
      if (++depth > MAX_DEPTH) reject("JSON-DEPTH", `nesting deeper than ${MAX_DEPTH} at character ${i}`);
    } else if (c === "}" || c === "]") depth--;
  }
}

function exactInteger(value, what) {
  if (typeof value !== "number" || !Number.isInteger(value)) reject("NUM-INTEGER", `${what} is not an integer`);
  if (value < 0) reject("NUM-INTEGER", `${what} is negative`);
  if (!Number.isSafeInteger(value)) reject("NUM-RANGE", `${what} is above 2^53, which this reader cannot hold exactly`);
  return BigInt(value);
}

function bitCount(dtype, shape) {
  if (shape.some((dim) => dim === 0n)) return 0n;
  let count = BigInt(BITS.get(dtype));
  for (const dim of shape) {
    count *= dim;
    if (count > U64_MAX) reject("SIZE-OVERFLOW", `the bit count of ${dtype} [${shape}] exceeds 2^64-1`);
  }
  return count;
}

function parseHeader(fd, fileSize) {
  if (fileSize < 8) reject("FILE-PREFIX", `the file is ${fileSize} bytes, shorter than the 8-byte prefix`);
  const n = readAt(fd, 0, 8).readBigUInt64LE(0);
  if (n > MAX_HEADER) reject("HEADER-LIMIT", `N = ${n} exceeds 100,000,000`);
  if (8n + n > BigInt(fileSize)) reject("HEADER-BOUNDS", `8 + N = ${8n + n} exceeds the file length ${fileSize}`);
  const raw = readAt(fd, 8, Number(n));
  let text;
  try {
    text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(raw);
  } catch {
    reject("HEADER-UTF8", "the header is not well-formed UTF-8");
  }
  let header;
  try {
    header = JSON.parse(text);
  } catch (error) {
    reject("JSON-SYNTAX", `the header is not JSON: ${error.message}`);
  }
  if (header === null || typeof header !== "object" || Array.isArray(header)) {
    reject("HEADER-OBJECT", "the header is not a JSON object");
  }
  checkDepth(text);
  return { header, dataStart: 8 + Number(n), bufferLength: BigInt(fileSize) - 8n - n };
}

function checkEntries(header) {
  let metadata = null;
  const tensors = [];
  for (const [name, value] of Object.entries(header)) {
    if (name === "__metadata__") {
      if (value === null) continue; // tolerated: null means no metadata
      if (typeof value !== "object" || Array.isArray(value)) reject("META-OBJECT", "__metadata__ is not an object");
      for (const [key, item] of Object.entries(value)) {
        if (typeof item !== "string") reject("META-STRING", `metadata value ${JSON.stringify(key)} is not a string`);
      }
      metadata = value;
      continue;
    }
    if (value === null || typeof value !== "object" || Array.isArray(value)) {
      reject("ENTRY-OBJECT", `member ${JSON.stringify(name)} is not a tensor entry object`);
    }
    for (const field of ["dtype", "shape", "data_offsets"]) {
      if (!(field in value)) reject("ENTRY-FIELDS", `tensor ${JSON.stringify(name)} has no ${field}`);
    }
    const { dtype, shape, data_offsets: offsets } = value;
    if (typeof dtype !== "string" || !BITS.has(dtype)) reject("DTYPE-NAME", `unknown dtype ${JSON.stringify(dtype)}`);
    if (!Array.isArray(shape)) reject("SHAPE-ARRAY", `the shape of ${JSON.stringify(name)} is not an array`);
    if (shape.some((dim) => typeof dim !== "number")) reject("SHAPE-ARRAY", "a shape holds a non-number");
    if (!Array.isArray(offsets) || offsets.length !== 2 || offsets.some((v) => typeof v !== "number")) {
      reject("OFFSETS-PAIR", `data_offsets of ${JSON.stringify(name)} is not two integers`);
    }
    const dims = shape.map((dim, i) => exactInteger(dim, `dimension ${i} of ${JSON.stringify(name)}`));
    const [begin, end] = offsets.map((v, i) => exactInteger(v, `offset ${i} of ${JSON.stringify(name)}`));
    const bits = bitCount(dtype, dims);
    if (bits % 8n !== 0n) reject("SIZE-BITS", `${dtype} [${dims}] is ${bits} bits, not whole bytes`);
    if (begin > end) reject("OFFSETS-ORDER", `data_offsets [${begin}, ${end}] run backwards`);
    if (end - begin !== bits / 8n) reject("SIZE-MATCH", `${JSON.stringify(name)} needs ${bits / 8n} bytes, has ${end - begin}`);
    tensors.push({ name, dtype, shape: dims, begin, end });
  }
  return { metadata, tensors };
}

function checkLayout(tensors, bufferLength) {
  const sorted = [...tensors].sort((a, b) => (a.begin === b.begin ? (a.end < b.end ? -1 : a.end > b.end ? 1 : 0) : a.begin < b.begin ? -1 : 1));
  let cursor = 0n;
  for (const t of sorted) {
    if (t.end > bufferLength) reject("LAYOUT-BOUNDS", `${JSON.stringify(t.name)} ends at ${t.end}, past the buffer (${bufferLength})`);
    if (t.begin > cursor) reject("LAYOUT-HOLE", `bytes ${cursor}..${t.begin} belong to no tensor`);
    if (t.begin < cursor) reject("LAYOUT-OVERLAP", `${JSON.stringify(t.name)} begins inside another tensor`);
    cursor = t.end;
  }
  if (cursor !== bufferLength) reject("LAYOUT-TRAILING", `${bufferLength - cursor} bytes follow the last tensor`);
}

function sha256Of(fd, start, length) {
  const hash = createHash("sha256");
  const chunk = 1 << 20;
  for (let done = 0n; done < length; ) {
    const size = Number(length - done < BigInt(chunk) ? length - done : BigInt(chunk));
    const bytes = readAt(fd, Number(BigInt(start) + done), size);
    if (bytes.length !== size) reject("LAYOUT-BOUNDS", "the file ended early");
    hash.update(bytes);
    done += BigInt(size);
  }
  return hash.digest("hex");
}

// Tensors above 256 MiB are answered with the sha256 of three 1 MiB windows
// (start, middle, end), as the protocol allows, instead of hashing gigabytes.
const HASH_LIMIT = 256n * 1024n * 1024n;
const WINDOW = 1024n * 1024n;

function windowsOf(fd, start, length) {
  const middle = length / 2n - WINDOW / 2n;
  const starts = [...new Set([0n, middle > 0n ? middle : 0n, length > WINDOW ? length - WINDOW : 0n])].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return starts.map((at) => {
    const size = length - at < WINDOW ? length - at : WINDOW;
    return [Number(at), sha256Of(fd, start + Number(at), size)];
  });
}

function describeFile(path) {
  const fd = openSync(path, "r");
  try {
    const { header, dataStart, bufferLength } = parseHeader(fd, fstatSync(fd).size);
    const { metadata, tensors } = checkEntries(header);
    checkLayout(tensors, bufferLength);
    // no prototype: a tensor named "__proto__" must stay an ordinary key
    const out = Object.create(null);
    for (const t of tensors) {
      const nbytes = t.end - t.begin;
      const entry = { dtype: t.dtype, shape: t.shape.map(Number), nbytes: Number(nbytes) };
      if (nbytes > HASH_LIMIT) entry.windows = windowsOf(fd, dataStart + Number(t.begin), nbytes);
      else entry.sha256 = sha256Of(fd, dataStart + Number(t.begin), nbytes);
      out[t.name] = entry;
    }
    return { result: "accepted", metadata, tensors: out };
  } finally {
    closeSync(fd);
  }
}

// --- writer ---------------------------------------------------------------------

function utf8Compare(a, b) {
  return Buffer.compare(Buffer.from(a, "utf8"), Buffer.from(b, "utf8"));
}

// JSON.stringify writes a lone surrogate as an escape, which no reader accepts.
function wellFormed(text, what) {
  if (!text.isWellFormed()) reject("JSON-SURROGATE", `${what} holds a lone surrogate`);
}

function serialize(request) {
  const metadata = request.metadata ?? null;
  const entries = [];
  for (const [name, t] of Object.entries(request.tensors ?? {})) {
    if (name === "__metadata__") reject("WRITE-RESERVED", "a tensor may not be named __metadata__");
    wellFormed(name, "the tensor name");
    if (!BITS.has(t.dtype)) reject("DTYPE-NAME", `unknown dtype ${JSON.stringify(t.dtype)}`);
    const dims = t.shape.map((dim, i) => exactInteger(dim, `dimension ${i}`));
    const bits = bitCount(t.dtype, dims);
    if (bits % 8n !== 0n) reject("SIZE-BITS", `${t.dtype} [${dims}] is not whole bytes`);
    const data = Buffer.from(t.hex, "hex");
    if (BigInt(data.length) !== bits / 8n) reject("SIZE-MATCH", `${name} needs ${bits / 8n} bytes, got ${data.length}`);
    entries.push({ name, dtype: t.dtype, shape: t.shape, data });
  }
  entries.sort((a, b) => RANK.get(b.dtype) - RANK.get(a.dtype) || utf8Compare(a.name, b.name));
  const parts = [];
  if (metadata !== null) {
    const keys = Object.keys(metadata).sort(utf8Compare);
    for (const key of keys) {
      if (typeof metadata[key] !== "string") reject("META-STRING", `metadata ${JSON.stringify(key)} is not a string`);
      wellFormed(key, "a metadata key");
      wellFormed(metadata[key], "a metadata value");
    }
    parts.push(`"__metadata__":{${keys.map((k) => `${JSON.stringify(k)}:${JSON.stringify(metadata[k])}`).join(",")}}`);
  }
  let offset = 0;
  for (const e of entries) {
    const end = offset + e.data.length;
    parts.push(`${JSON.stringify(e.name)}:{"dtype":"${e.dtype}","shape":[${e.shape.join(",")}],"data_offsets":[${offset},${end}]}`);
    offset = end;
  }
  let head = Buffer.from(`{${parts.join(",")}}`, "utf8");
  const pad = (8 - ((8 + head.length) % 8)) % 8;
  if (BigInt(head.length + pad) > MAX_HEADER) reject("HEADER-LIMIT", `the header would be ${head.length + pad} bytes`);
  head = Buffer.concat([head, Buffer.alloc(pad, 0x20)]);
  const prefix = Buffer.alloc(8);
  prefix.writeBigUInt64LE(BigInt(head.length));
  return Buffer.concat([prefix, head, ...entries.map((e) => e.data)]);
}

function write(out) {
  const request = JSON.parse(readFileSync(0, "utf8"));
  const bytes = serialize(request);
  const temp = `${out}.tmp-${process.pid}`;
  try {
    writeFileSync(temp, bytes);
    renameSync(temp, out);
  } catch (error) {
    try { unlinkSync(temp); } catch { /* already gone */ }
    throw error;
  }
}

// --- main -----------------------------------------------------------------------

const args = process.argv.slice(2);
try {
  if (args[0] === "--describe") {
    const capabilities = { write: true, write_dtypes: DTYPES.map(([name]) => name), canonical: true };
    process.stdout.write(JSON.stringify({ protocol: 2, name: "reader.mjs (Node.js example)", version: "0.2.0", capabilities }) + "\n");
  } else if (args[0] === "--write" && args.length === 2) {
    write(args[1]);
    process.stdout.write(JSON.stringify({ result: "written" }) + "\n");
  } else if (args.length === 1) {
    process.stdout.write(JSON.stringify(describeFile(args[0])) + "\n");
  } else {
    process.stderr.write("usage: reader.mjs FILE | --write OUT | --describe\n");
    process.exitCode = 2;
  }
} catch (error) {
  if (error instanceof Rejected) {
    const result = args[0] === "--write" ? "refused" : "rejected";
    process.stdout.write(JSON.stringify({ result, rule: error.rule, reason: error.message }) + "\n");
    process.exitCode = 1;
  } else {
    // Not a rejection but a bug: no answer on stdout, so the suite counts a
    // crash; exit 70 says so to people too.
    process.stderr.write(`${error.stack ?? error}\n`);
    process.exitCode = 70;
  }
}
