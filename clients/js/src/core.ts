// The core (src/core, compiled to WebAssembly by the Makefile) and the
// helpers that move bytes in and out of its memory.  Instantiated
// synchronously at import: the module is small enough for every engine's
// synchronous compile, so the API needs no await.
import { WASM_BASE64 } from "./core-wasm.js";

export interface CoreExports {
  memory: WebAssembly.Memory;
  _initialize(): void;
  js_malloc(n: number): number;
  js_calloc(n: number): number;
  js_free(p: number): void;
  js_status_message(status: number): number;
  js_default_shape(p: number, n: number, out: number): number;
  js_check_shape(m: number, k: number): number;
  js_check_header(header: number): number;
  js_header_size(): number;
  js_add(bits: number, m: number, k: number, scheme: number, data: number, len: number): void;
  js_contains(bits: number, m: number, k: number, scheme: number, data: number, len: number): number;
  js_add_fixed(bits: number, m: number, k: number, scheme: number, data: number, width: number, count: number): void;
  js_contains_fixed(bits: number, m: number, k: number, scheme: number, data: number, width: number, count: number, out: number): void;
  js_add_varying(bits: number, m: number, k: number, scheme: number, data: number, offsets: number, count: number): void;
  js_contains_varying(bits: number, m: number, k: number, scheme: number, data: number, offsets: number, count: number, out: number): void;
  js_popcount(bits: number, nbytes: number): number;
  js_popcount_or(a: number, b: number, nbytes: number): number;
  js_or(dst: number, a: number, b: number, nbytes: number): void;
  js_and(dst: number, a: number, b: number, nbytes: number): void;
  js_cardinality(m: number, k: number, scheme: number, bitsSet: number): number;
  js_false_positive_rate(bits: number, m: number, k: number, scheme: number, bitsSet: number): number;
  js_expected_false_positive_rate(m: number, k: number, n: number): number;
  js_text_length(header: number): number;
  js_text_encode(header: number, bits: number, out: number): void;
  js_text_decode(text: number, len: number, header: number, bitsOut: number, unused: number): number;
  js_binary_encode_header(header: number, out: number): void;
  js_binary_decode(data: number, len: number, header: number, formOut: number, offsetOut: number): number;
  js_counting_text_decode(text: number, len: number, header: number, countersOut: number, unused: number): number;
  js_counting_binary_decode(data: number, len: number, header: number, formOut: number, offsetOut: number): number;
  js_counting_contains(counters: number, m: number, k: number, scheme: number, data: number, len: number): number;
  js_counting_text_length(header: number): number;
  js_counting_text_encode(header: number, counters: number, out: number): void;
  js_scalable_view_size(): number;
  js_scalable_parse(body: number, len: number, view: number): number;
  js_scalable_text_measure(text: number, len: number, bodyLenOut: number): number;
  js_scalable_text_decode(text: number, len: number, body: number, bodyLenOut: number): number;
  js_scalable_contains(body: number, view: number, data: number, len: number): number;
  js_scalable_text_length(body: number, view: number): number;
  js_scalable_text_encode(body: number, view: number, out: number): void;
  js_scalable_cardinality(body: number, view: number): number;
  js_scalable_stages(view: number): number;
  js_hash(data: number, len: number, out: number): void;
}

function decodeBase64(text: string): Uint8Array<ArrayBuffer> {
  const g = globalThis as unknown as { Buffer?: { from(s: string, e: string): Uint8Array }; atob?(s: string): string };
  if (g.Buffer) return new Uint8Array(g.Buffer.from(text, "base64"));
  const binary = g.atob!(text);
  const out = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
  return out;
}

// The C library's stdio is linked (snprintf) but never writes to a file.
const ENOSYS = 52;
const wasi = {
  fd_close: () => ENOSYS,
  fd_seek: () => ENOSYS,
  fd_write: () => ENOSYS,
};

const wasmModule = new WebAssembly.Module(decodeBase64(WASM_BASE64));
const instance = new WebAssembly.Instance(wasmModule, { wasi_snapshot_preview1: wasi });
export const core = instance.exports as unknown as CoreExports;
core._initialize();

/** The module's memory as bytes; taken again after any allocation (memory may grow). */
export function heap(): Uint8Array {
  return new Uint8Array(core.memory.buffer);
}

export function view(): DataView {
  return new DataView(core.memory.buffer);
}

/** malloc that fails loudly: the module's memory is at most 4 GB. */
export function alloc(n: number, zero = false): number {
  const p = zero ? core.js_calloc(n) : core.js_malloc(n);
  if (p === 0) throw new RangeError(`bloomfilter: cannot allocate ${n} bytes in the WebAssembly memory`);
  return p;
}

export function cString(p: number): string {
  const h = heap();
  let end = p;
  while (h[end] !== 0) end++;
  return new TextDecoder().decode(h.subarray(p, end));
}

/** Copy bytes into a fresh allocation; the caller frees it. */
export function copyIn(bytes: Uint8Array): number {
  const p = alloc(bytes.length + 1);
  heap().set(bytes, p);
  return p;
}

/** A scratch allocation that grows as needed and is never freed. */
export class Scratch {
  private ptr = 0;
  private size = 0;
  get(n: number): number {
    if (n > this.size) {
      if (this.ptr) core.js_free(this.ptr);
      this.size = Math.max(n, 2 * this.size, 64);
      this.ptr = alloc(this.size);
    }
    return this.ptr;
  }
}
