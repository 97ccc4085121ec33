// Command protocol 2 for the Node wrappers: answers, digests, exit codes.
// Exit 0 = accepted, 1 = rejected (with the JSON answer); a wrapper exits 70
// on anything it does not recognise as the library's own refusal, so the
// suite counts it as a crash, never as a rejection.
import { createHash } from "node:crypto";

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

export function answer(value, code) {
  process.stdout.write(JSON.stringify(value) + "\n", () => process.exit(code));
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
    process.stdout.write(JSON.stringify(line) + "\n");
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
  try {
    answer({ result: "accepted", ...(await read(args[0])) }, 0);
  } catch (error) {
    if (isRejection(error)) reject(`${error.name}: ${error.message}`);
    else crash(error);
  }
}
