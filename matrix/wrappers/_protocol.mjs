// Command protocol 2 for the Node wrappers: answers, digests, exit codes.
// Exit 0 = accepted, 1 = rejected (with the JSON answer); a wrapper exits 70
// on anything it does not recognise as the library's own refusal, so the
// suite counts it as a crash, never as a rejection.
import { createHash } from "node:crypto";
import { closeSync, fstatSync, openSync, readSync } from "node:fs";

const WINDOW = 1 << 20;
const WINDOWED_ABOVE = 256 << 20;

function sha256(bytes) {
  return createHash("sha256").update(bytes).digest("hex");
}

// A tensor's bytes as the protocol wants them: a sha256, or above 256 MiB
// the sha256 of three 1 MiB windows (start, middle, end).
export function digest(bytes) {
  const n = bytes.length;
  if (n <= WINDOWED_ABOVE) return { sha256: sha256(bytes), nbytes: n };
  const starts = [...new Set([0, Math.max(0, Math.floor(n / 2) - WINDOW / 2), Math.max(0, n - WINDOW)])];
  starts.sort((a, b) => a - b);
  return { windows: starts.map((s) => [s, sha256(bytes.subarray(s, s + Math.min(WINDOW, n - s)))]), nbytes: n };
}

// The largest single read Node makes (readFileSync refuses a file over 2 GiB
// with ERR_FS_FILE_TOO_LARGE): a limit of Node's file API, not of a library.
const CHUNK = 1 << 30;

// A file its wrapper does not hand over: beyond what the library's API can be
// given, a limit the wrapper declares (max_file_size), refused before reading.
export class BeyondLimit extends Error {
  name = "BeyondLimit";
}

// The whole file in one fresh ArrayBuffer, read in chunks, as a caller of an
// in-memory API fills one for a file of any size; `most` bytes at most.
export function readWhole(path, most = Number.MAX_SAFE_INTEGER) {
  const fd = openSync(path, "r");
  try {
    const size = fstatSync(fd).size;
    if (size > most) throw new BeyondLimit(`the file's ${size} bytes are more than the ${most} its API can take`);
    const buffer = new ArrayBuffer(size);
    let done = 0;
    while (done < size) {
      const want = Math.min(CHUNK, size - done);
      const got = readSync(fd, new Uint8Array(buffer, done, want), 0, want, done);
      if (got === 0) break; // the file shrank while it was read
      done += got;
    }
    return done === size ? buffer : buffer.slice(0, done);
  } finally {
    closeSync(fd);
  }
}

export function answer(value, code) {
  process.stdout.write(JSON.stringify(value) + "\n", () => process.exit(code));
}

// JSON of the library's answer, or of `unserialisable(why)` when the wrapper
// cannot serialise it (a 100,000-deep "shape" overflows JSON.stringify's
// stack): the library accepted the file, and only its verdicts count.
function serialised(value, unserialisable) {
  try {
    return JSON.stringify(value);
  } catch (error) {
    const why = `${error?.name}: ${error?.message}`.slice(0, 300);
    return JSON.stringify(
      unserialisable(`the library accepted the file; its answer could not be serialised (${why})`),
    );
  }
}

export function reject(reason) {
  answer({ result: "rejected", reason: String(reason).slice(0, 500) }, 1);
}

export function crash(error) {
  process.stderr.write(`${error?.stack ?? error}\n`);
  process.exit(70);
}

// For matrix.probe: one JSON line per file ({"file", "result", ...}), so a
// probe costs one Node start-up, not one per file.  Not part of the protocol.
async function each(files, read, isRejection) {
  for (const file of files) {
    let line;
    try {
      line = { file, result: "accepted", ...(await read(file)) };
    } catch (error) {
      const reason = `${error?.name}: ${error?.message}`.slice(0, 300);
      line = { file, result: isRejection(error) ? "rejected" : "crashed", error: reason };
    }
    // outside the try: the wrapper's own failure is no verdict of the library
    const text = serialised(line, (why) => ({ file, result: "accepted", error: why }));
    process.stdout.write(text + "\n");
  }
}

// Runs read mode, prints the description, or probes many files (--each).
export async function serve(describe, read, isRejection) {
  const args = process.argv.slice(2);
  if (args.length === 1 && args[0] === "--describe") return answer(describe, 0);
  if (args[0] === "--each") return each(args.slice(1), read, isRejection);
  if (args.length !== 1 || args[0].startsWith("--")) {
    process.stderr.write("usage: wrapper FILE | --describe\n");
    process.exit(2);
  }
  let value;
  try {
    value = await read(args[0]);
  } catch (error) {
    if (isRejection(error)) reject(`${error.name}: ${error.message}`);
    else crash(error);
    return;
  }
  // outside the try: the wrapper's own failure is no verdict of the library
  // (the suite reads an answer without tensors as a malformed acceptance)
  const text = serialised({ result: "accepted", ...value }, (why) => ({
    result: "accepted",
    tensors: null,
    reason: why,
  }));
  process.stdout.write(text + "\n", () => process.exit(0));
}
