// Runs a wasm32-wasip1 program (a cargo test binary) under Node's WASI: cargo's runner for that
// target (`CARGO_TARGET_WASM32_WASIP1_RUNNER="node .ci/wasi-run.mjs"`, set by .ci/cross.sh).
// The guest sees its arguments, the environment, and two directories: the working directory
// (cargo runs a test binary in its package's directory) as `.` and under its own absolute path,
// so relative and `CARGO_MANIFEST_DIR` paths both resolve, and a scratch directory as `/tmp`.
// Exits with the guest's exit code.
import { readFile, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { WASI } from "node:wasi";

const [wasmPath, ...args] = process.argv.slice(2);
if (!wasmPath) {
  console.error("usage: node .ci/wasi-run.mjs PROGRAM.wasm [ARGS...]");
  process.exit(2);
}
const cwd = process.cwd();
const scratch = await mkdtemp(join(tmpdir(), "wasi-run-"));
const wasi = new WASI({
  version: "preview1",
  args: [wasmPath, ...args],
  env: process.env,
  preopens: { ".": cwd, [cwd]: cwd, "/tmp": scratch },
  returnOnExit: true,
});
let code = 1;
try {
  const module = await WebAssembly.compile(await readFile(wasmPath));
  const instance = await WebAssembly.instantiate(module, wasi.getImportObject());
  code = wasi.start(instance);
} catch (e) {
  // A trap (a panic under panic=abort is `unreachable`) ends the guest here.
  console.error(`wasi-run: ${wasmPath}: ${e}`);
  code = 101;
} finally {
  await rm(scratch, { recursive: true, force: true });
}
process.exit(code);
