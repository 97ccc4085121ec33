// A corpus harness in a second language, written from corpus/manifest.schema.json
// and the README alone: it proves the corpus can be vendored without Python.
//
//   node harness.mjs CORPUS_DIR WORK_DIR [--full] -- READER_COMMAND...
//
// 1. reads manifest.json with plain JSON.parse (and checks that nothing was lost:
//    every number a safe integer, no floats);
// 2. checks every committed file's size and sha256;
// 3. builds every recipe into WORK_DIR from its documented params and checks
//    size and sha256 (sparse files: the zero runs are holes);
// 4. reads every y_ and i_ file itself (its own header parser, bigint-exact),
//    and compares metadata, names, dtypes, shapes, byte lengths, sha256 and
//    the decoded element values with `expected` (tensors_sha256 for the
//    compact form); tensors above 256 MiB are hashed only with --full;
// 5. runs READER_COMMAND FILE... (an auditor's `stspec check --json`) on all
//    the files and checks its verdicts: y_ valid; n_, x_ and i_
//    invalid/tolerated with exactly the manifest's rules (an x_ file breaks
//    every rule it lists).
// Node's standard library only. Exit status 0 when everything agrees.

import { createHash } from "node:crypto";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

const HASH_LIMIT = 256 * 1024 * 1024;
const WHOLE_LIMIT = 64 * 1024 * 1024;
const EMPTY_SHA256 = createHash("sha256").digest("hex"); // a header of a million empty tensors
const problems = [];
const problem = (id, text) => problems.push(`${id}: ${text}`);

// --- the manifest -----------------------------------------------------------

function checkNumbers(value, where) {
  if (typeof value === "number" && !Number.isSafeInteger(value)) {
    problem("manifest", `${where} = ${value} is not exact in a double`);
  } else if (Array.isArray(value)) {
    value.forEach((item, i) => checkNumbers(item, `${where}[${i}]`));
  } else if (value !== null && typeof value === "object") {
    for (const [key, item] of Object.entries(value)) checkNumbers(item, `${where}.${key}`);
  }
}

// --- a header parser that keeps integers exact (BigInt) ---------------------

const NUMBER = /-?\d+(\.\d+)?([eE][-+]?\d+)?/y;

function parseJson(text) {
  let i = 0;
  const ws = () => {
    for (let c = text.charCodeAt(i); c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d; c = text.charCodeAt(++i));
  };
  const fail = (what) => { throw new Error(`${what} at ${i}`); };
  function value() {
    ws();
    const c = text[i];
    if (c === "{") {
      i++;
      const out = {};
      ws();
      if (text[i] === "}") { i++; return out; }
      for (;;) {
        ws();
        if (text[i] !== '"') fail("expected a name");
        const key = string();
        ws();
        if (text[i++] !== ":") fail("expected ':'");
        out[key] = value();
        ws();
        if (text[i] === ",") { i++; continue; }
        if (text[i++] === "}") return out;
        fail("expected ',' or '}'");
      }
    }
    if (c === "[") {
      i++;
      const out = [];
      ws();
      if (text[i] === "]") { i++; return out; }
      for (;;) {
        out.push(value());
        ws();
        if (text[i] === ",") { i++; continue; }
        if (text[i++] === "]") return out;
        fail("expected ',' or ']'");
      }
    }
    if (c === '"') return string();
    for (const [word, result] of [["true", true], ["false", false], ["null", null]]) {
      if (text.startsWith(word, i)) { i += word.length; return result; }
    }
    NUMBER.lastIndex = i;
    const match = NUMBER.exec(text);
    if (!match) fail("unexpected character");
    i += match[0].length;
    return match[1] || match[2] ? Number(match[0]) : BigInt(match[0]);
  }
  function string() {
    let close = i + 1; // most names and values have no escape and no control character: the text itself
    for (let c = text.charCodeAt(close); c !== 0x22 && c !== 0x5c && c >= 0x20; c = text.charCodeAt(++close));
    if (text.charCodeAt(close) === 0x22) {
      const plain = text.slice(i + 1, close);
      i = close + 1;
      return plain;
    }
    let end = ++i;
    while (text[end] !== '"') {
      if (end >= text.length) fail("unterminated string");
      end += text[end] === "\\" ? 2 : 1;
    }
    const raw = text.slice(i - 1, end + 1);
    i = end + 1;
    return JSON.parse(raw); // escapes only: no numbers inside
  }
  const result = value();
  ws();
  if (i !== text.length) fail("trailing text");
  return result;
}

function readHeader(file) {
  const fd = fs.openSync(file, "r");
  try {
    const prefix = Buffer.alloc(8);
    fs.readSync(fd, prefix, 0, 8, 0);
    const n = Number(prefix.readBigUInt64LE(0));
    const header = Buffer.alloc(n);
    fs.readSync(fd, header, 0, n, 8);
    return { fd, start: 8 + n, json: parseJson(new TextDecoder("utf-8", { fatal: true }).decode(header)) };
  } catch (error) {
    fs.closeSync(fd);
    throw error;
  }
}

function readRange(fd, position, length) {
  const out = Buffer.alloc(length);
  let done = 0;
  while (done < length) {
    const got = fs.readSync(fd, out, done, Math.min(length - done, 1 << 24), position + done);
    if (got === 0) throw new Error("file ends early");
    done += got;
  }
  return out;
}

function hashRange(fd, position, length) {
  const hash = createHash("sha256");
  const chunk = Buffer.alloc(1 << 22);
  for (let done = 0; done < length; ) {
    const got = fs.readSync(fd, chunk, 0, Math.min(chunk.length, length - done), position + done);
    if (got === 0) throw new Error("file ends early");
    hash.update(chunk.subarray(0, got));
    done += got;
  }
  return hash.digest("hex");
}

// --- element decoding (SPEC §6, §6.2) ---------------------------------------

const INTS = { U8: [1, "Uint8"], I8: [1, "Int8"], U16: [2, "Uint16"], I16: [2, "Int16"],
  U32: [4, "Uint32"], I32: [4, "Int32"], U64: [8, "BigUint64"], I64: [8, "BigInt64"] };
// bits, exponent bits, mantissa bits, bias, kind of special values
const MINIFLOATS = {
  F16: [16, 5, 10, 15, "ieee"], BF16: [16, 8, 7, 127, "ieee"],
  F8_E5M2: [8, 5, 2, 15, "ieee"], F8_E4M3: [8, 4, 3, 7, "fn"],
  F8_E4M3FNUZ: [8, 4, 3, 8, "fnuz"], F8_E5M2FNUZ: [8, 5, 2, 16, "fnuz"],
  F4: [4, 2, 1, 1, "finite"], F6_E2M3: [6, 2, 3, 1, "finite"], F6_E3M2: [6, 3, 2, 3, "finite"],
};

function minifloat(code, [bits, e, m, bias, kind]) {
  const sign = (code >> (bits - 1)) & 1 ? -1 : 1;
  const exponent = (code >> m) & ((1 << e) - 1);
  const mantissa = code & ((1 << m) - 1);
  if (kind === "fnuz" && code === 1 << (bits - 1)) return NaN;
  if (kind === "ieee" && exponent === (1 << e) - 1) return mantissa ? NaN : sign * Infinity;
  if (kind === "fn" && exponent === (1 << e) - 1 && mantissa === (1 << m) - 1) return NaN;
  if (exponent === 0) return sign * mantissa * 2 ** (1 - bias - m);
  return sign * (1 + mantissa / 2 ** m) * 2 ** (exponent - bias);
}

function decode(dtype, bytes, count) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.length);
  if (dtype === "BOOL") return [...bytes].map((b) => b !== 0);
  if (INTS[dtype]) {
    const [size, name] = INTS[dtype];
    return Array.from({ length: count }, (_, k) => BigInt(view[`get${name}`](k * size, true)));
  }
  if (dtype === "F32") return Array.from({ length: count }, (_, k) => view.getFloat32(k * 4, true));
  if (dtype === "F64") return Array.from({ length: count }, (_, k) => view.getFloat64(k * 8, true));
  if (dtype === "C64") {
    return Array.from({ length: count }, (_, k) => [view.getFloat32(k * 8, true), view.getFloat32(k * 8 + 4, true)]);
  }
  if (dtype === "F8_E8M0") return [...bytes].map((b) => (b === 0xff ? NaN : 2 ** (b - 127)));
  const format = MINIFLOATS[dtype];
  if (!format) throw new Error(`unknown dtype ${dtype}`);
  const bits = format[0];
  const out = [];
  for (let k = 0; k < count; k++) { // a little-endian bit stream, element 0 lowest
    let code = 0;
    for (let b = 0; b < bits; b++) {
      const at = k * bits + b;
      code |= ((bytes[at >> 3] >> (at & 7)) & 1) << b;
    }
    out.push(minifloat(code, format));
  }
  return out;
}

const sameFloat = (a, b) => (Number.isNaN(a) && Number.isNaN(b)) || Object.is(a, b);

function sameValue(got, want) {
  if (typeof want === "boolean") return got === want;
  if (Array.isArray(want)) return sameFloat(got[0], Number(want[0])) && sameFloat(got[1], Number(want[1]));
  if (typeof got === "bigint") return got === BigInt(want);
  return sameFloat(got, Number(want)); // "NaN", "Infinity", "-0.0", "1e-05" ...
}

// --- expected content ---------------------------------------------------------

function tensorsDigest(tensors) {
  const lines = Object.entries(tensors)
    .map(([name, t]) => `${Buffer.from(name, "utf8").toString("hex")} ${t.dtype} ${t.shape.join(",")} ${t.sha256}\n`)
    .sort();
  return createHash("sha256").update(lines.join(""), "ascii").digest("hex");
}

function checkContent(id, file, expected, full, stats) {
  let header;
  try {
    header = readHeader(file);
  } catch (error) {
    problem(id, `cannot read the header: ${error.message}`);
    return;
  }
  const { fd, start, json } = header;
  try {
    const metadata = Object.hasOwn(json, "__metadata__") ? json.__metadata__ : null;
    if (JSON.stringify(sortKeys(metadata)) !== JSON.stringify(sortKeys(expected.metadata))) {
      problem(id, `metadata ${JSON.stringify(metadata)}, expected ${JSON.stringify(expected.metadata)}`);
    }
    const loaded = {};
    // a small buffer is read once (files of 100,000 tensors), a large one tensor by tensor
    const size = fs.fstatSync(fd).size - start;
    const buffer = size <= WHOLE_LIMIT ? readRange(fd, start, size) : null;
    for (const [name, entry] of Object.entries(json)) {
      if (name === "__metadata__") continue;
      const [begin, end] = entry.data_offsets.map(Number);
      const tensor = { dtype: entry.dtype, shape: entry.shape.map(String), nbytes: end - begin };
      if (tensor.nbytes <= HASH_LIMIT) {
        tensor.bytes = buffer ? buffer.subarray(begin, end) : readRange(fd, start + begin, tensor.nbytes);
        tensor.sha256 = tensor.nbytes ? createHash("sha256").update(tensor.bytes).digest("hex") : EMPTY_SHA256;
      } else if (full) {
        tensor.sha256 = hashRange(fd, start + begin, tensor.nbytes);
      } else {
        stats.unhashed++;
      }
      loaded[name] = tensor;
    }
    if (expected.tensors === undefined) {
      const count = Object.keys(loaded).length;
      if (count !== expected.tensor_count) problem(id, `${count} tensors, expected ${expected.tensor_count}`);
      else if (tensorsDigest(loaded) !== expected.tensors_sha256) problem(id, "tensors_sha256 differs");
      stats.tensors += count;
      return;
    }
    const names = (o) => JSON.stringify(Object.keys(o).sort());
    if (names(loaded) !== names(expected.tensors)) {
      problem(id, `tensors ${names(loaded)}, expected ${names(expected.tensors)}`);
      return;
    }
    for (const [name, want] of Object.entries(expected.tensors)) {
      const got = loaded[name];
      stats.tensors++;
      for (const key of ["dtype", "nbytes", "sha256"]) {
        if (got[key] !== undefined && got[key] !== want[key]) problem(id, `${name}.${key} ${got[key]}, expected ${want[key]}`);
      }
      if (got.shape.join() !== want.shape.join()) problem(id, `${name}.shape [${got.shape}], expected [${want.shape}]`);
      if (want.values === undefined) continue;
      const values = decode(want.dtype, got.bytes, want.values.length);
      values.forEach((value, k) => {
        stats.values++;
        if (!sameValue(value, want.values[k])) problem(id, `${name}[${k}] decodes to ${value}, expected ${want.values[k]}`);
      });
    }
  } finally {
    fs.closeSync(fd);
  }
}

function sortKeys(value) {
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(Object.keys(value).sort().map((k) => [k, value[k]]));
}

// --- recipes (corpus/manifest.schema.json, $defs/recipe) -------------------

function u64le(n) {
  const out = Buffer.alloc(8);
  out.writeBigUInt64LE(BigInt(n));
  return out;
}

function materialise({ name, params }, target) {
  const fd = fs.openSync(target, "w");
  try {
    if (name === "padded-header") {
      const data = Buffer.alloc(8 + params.length, 0x20);
      u64le(params.length).copy(data, 0);
      Buffer.from(params.header, "utf8").copy(data, 8);
      fs.writeSync(fd, data, 0, data.length, 0);
    } else if (name === "sparse") {
      const header = Buffer.from(params.header, "utf8");
      const size = 8 + header.length + params.buffer_length;
      fs.writeSync(fd, Buffer.concat([u64le(header.length), header]), 0, 8 + header.length, 0);
      const tail = Buffer.from(params.tail, "hex");
      if (tail.length) fs.writeSync(fd, tail, 0, tail.length, size - tail.length);
      fs.ftruncateSync(fd, size);
    } else if (name === "many-tensors") {
      const width = String(params.count - 1).length;
      const members = [];
      // hole_at: one unused byte before that tensor (a LAYOUT-HOLE late in the file)
      const holeAt = params.hole_at ?? params.count;
      for (let k = 0; k < params.count; k++) {
        const begin = k + (k >= holeAt ? 1 : 0);
        const offsets = params.overlap ? "[0,1]" : `[${begin},${begin + 1}]`;
        members.push(`"t${String(k).padStart(width, "0")}":{"dtype":"U8","shape":[1],"data_offsets":${offsets}}`);
      }
      let header = `{${members.join(",")}}`;
      header += " ".repeat((8 - ((8 + header.length) % 8)) % 8);
      let buffer = params.overlap
        ? Buffer.from([0])
        : Buffer.from(Array.from({ length: params.count }, (_, k) => k % 256));
      if (!params.overlap && holeAt < params.count) {
        buffer = Buffer.concat([buffer.subarray(0, holeAt), Buffer.from([0]), buffer.subarray(holeAt)]);
      }
      const data = Buffer.concat([u64le(header.length), Buffer.from(header, "utf8"), buffer]);
      fs.writeSync(fd, data, 0, data.length, 0);
    } else if (name === "many-metadata") {
      // count keys k00000.. with ASCII values of `length`; one fault at key `at`
      const faults = ["none", "integer", "duplicate", "bad-utf8"];
      if (!faults.includes(params.fault)) throw new Error(`many-metadata: unknown fault ${params.fault}`);
      const key = (k) => `k${String(k).padStart(5, "0")}`;
      const pieces = [];
      for (let k = 0; k < params.count; k++) {
        const name = params.fault === "duplicate" && k === params.at ? key(k - 10) : key(k);
        const text = `${k}:${"abcdefghij".repeat(Math.floor(params.length / 10) + 1)}`.slice(0, params.length);
        let value = Buffer.from(JSON.stringify(text), "utf8");
        if (k === params.at && params.fault === "integer") value = Buffer.from("1");
        if (k === params.at && params.fault === "bad-utf8") value = Buffer.concat([Buffer.from([0x22, 0xff]), value.subarray(1)]);
        pieces.push(Buffer.concat([Buffer.from(`${JSON.stringify(name)}:`, "utf8"), value]));
      }
      const parts = [Buffer.from('{"__metadata__":{'), ...pieces.flatMap((p, i) => (i ? [Buffer.from(","), p] : [p])), Buffer.from("}}")];
      let header = Buffer.concat(parts);
      header = Buffer.concat([header, Buffer.alloc((8 - ((8 + header.length) % 8)) % 8, 0x20)]);
      const data = Buffer.concat([u64le(header.length), header]);
      fs.writeSync(fd, data, 0, data.length, 0);
    } else if (name === "dense-header") {
      const digits = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
      const members = [];
      for (let k = 0; k < params.count; k++) {
        let rest = k;
        let tensor = "";
        for (let d = 0; d < 4; d++) {
          tensor = digits[rest % 62] + tensor;
          rest = Math.floor(rest / 62);
        }
        members.push(`"${tensor}":{"dtype":"U8","shape":[0],"data_offsets":[0,0]}`);
      }
      const data = Buffer.alloc(8 + params.length, 0x20);
      u64le(params.length).copy(data, 0);
      Buffer.from(`{${members.join(",")}}`, "utf8").copy(data, 8);
      fs.writeSync(fd, data, 0, data.length, 0);
    } else {
      throw new Error(`unknown recipe ${name}`);
    }
  } finally {
    fs.closeSync(fd);
  }
}

// --- verdicts from the reader command ------------------------------------------

function checkVerdicts(command, cases) {
  const run = spawnSync(command[0], [...command.slice(1), ...cases.map((c) => c.path)], {
    encoding: "utf8",
    maxBuffer: 1 << 28,
  });
  if (run.error) throw run.error;
  const report = JSON.parse(run.stdout);
  const byFile = new Map(report.files.map((f) => [f.file, f]));
  for (const c of cases) {
    const got = byFile.get(c.path);
    if (!got) { problem(c.id, "the reader reported nothing"); continue; }
    const rules = [...new Set(got.violations.map((v) => v.rule))].sort();
    const want = c.verdict === "valid" ? [] : [...c.rules].sort();
    if (got.verdict !== c.verdict || rules.join() !== want.join()) {
      problem(c.id, `the reader says ${got.verdict} [${rules}], the manifest ${c.verdict} [${want}]`);
    }
  }
  return cases.length;
}

// --- main ---------------------------------------------------------------------

function main(argv) {
  const split = argv.indexOf("--");
  const options = split < 0 ? argv : argv.slice(0, split);
  const command = split < 0 ? [] : argv.slice(split + 1);
  const full = options.includes("--full");
  const [corpus, work] = options.filter((a) => a !== "--full");
  if (!corpus || !work) {
    console.error("usage: node harness.mjs CORPUS_DIR WORK_DIR [--full] -- READER_COMMAND...");
    return 2;
  }
  const manifest = JSON.parse(fs.readFileSync(path.join(corpus, "manifest.json"), "utf8"));
  checkNumbers(manifest, "manifest");
  fs.mkdirSync(work, { recursive: true });
  const stats = { files: 0, recipes: 0, tensors: 0, values: 0, unhashed: 0, verdicts: 0 };
  const judged = [];
  for (const c of manifest.cases) {
    const verdicts = { y: "valid", n: "invalid", x: "invalid", i: "tolerated" };
    if (!/^[ynxi]_/.test(c.id) || verdicts[c.id[0]] !== c.verdict) {
      problem(c.id, `prefix and verdict ${c.verdict} disagree`);
    }
    let file;
    if (c.file !== undefined) {
      file = path.join(corpus, c.file);
      stats.files++;
    } else {
      file = path.join(work, `${c.id}.safetensors`);
      materialise(c.recipe, file);
      stats.recipes++;
    }
    const size = fs.statSync(file).size;
    if (size !== c.size) problem(c.id, `${size} bytes, the manifest says ${c.size}`);
    if (c.sha256 !== undefined) {
      const fd = fs.openSync(file, "r");
      const digest = hashRange(fd, 0, size);
      fs.closeSync(fd);
      if (digest !== c.sha256) problem(c.id, "sha256 differs from the manifest");
    }
    if (c.expected !== undefined) checkContent(c.id, file, c.expected, full, stats);
    judged.push({ ...c, path: file });
  }
  if (command.length) stats.verdicts = checkVerdicts(command, judged);
  for (const line of problems) console.log(line);
  console.log(
    `${manifest.cases.length} cases: ${stats.files} files and ${stats.recipes} recipes built from ` +
      `their params checked; ${stats.tensors} tensors and ${stats.values} element values compared with ` +
      `expected; ${stats.verdicts} verdicts compared; ${stats.unhashed} tensors above 256 MiB not ` +
      `hashed (--full hashes them); ${problems.length} problem(s)`,
  );
  return problems.length ? 1 : 0;
}

process.exitCode = main(process.argv.slice(2));
