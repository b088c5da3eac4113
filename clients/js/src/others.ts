// counting_bloom and scalable_bloom values, read from their text or binary
// forms and probed: the core's decoders, validators and membership tests.
import { alloc, core, copyIn, heap, view, Scratch } from "./core.js";
import { BloomError } from "./errors.js";
import { decodeBinaryForm, decodeTextForm, encodeOne, statusError } from "./bloom.js";
import { Value } from "./values.js";

const freed = new FinalizationRegistry<number>((ptr) => core.js_free(ptr));
const scratch = new Scratch();

/** A counting_bloom value: membership is "every counter of the value non-zero". */
export class CountingBloom {
  private constructor(
    private ptr: number,
    readonly m: number,
    readonly k: number,
    readonly hashScheme: number,
    readonly flags: number,
  ) {
    freed.register(this, ptr);
  }

  /** counting_bloom_in */
  static fromText(text: string): CountingBloom {
    const { header: h, array } = decodeTextForm(text, "counting_bloom", core.js_counting_text_decode);
    return new CountingBloom(array, h.m, h.k, h.scheme, h.flags);
  }

  /** counting_bloom_recv */
  static fromBinary(data: Uint8Array): CountingBloom {
    const { header: h, form, offset } = decodeBinaryForm(data, "counting_bloom", core.js_counting_binary_decode);
    // the counters are in the form at offset: keep it whole
    const filter = new CountingBloom(form, h.m, h.k, h.scheme, h.flags);
    filter.offset = offset;
    return filter;
  }

  private offset = 0;

  contains(value: Value): boolean {
    const [p, len] = encodeOne(value);
    return core.js_counting_contains(this.ptr + this.offset, this.m, this.k, this.hashScheme, p, len) !== 0;
  }

  /** counting_bloom_out's text. */
  toText(): string {
    const h = scratch.get(16);
    const dv = view();
    dv.setUint8(h, 1);
    dv.setUint8(h + 1, this.hashScheme);
    dv.setUint8(h + 2, this.k);
    dv.setUint8(h + 3, this.flags);
    dv.setBigUint64(h + 8, BigInt(this.m), true);
    const length = core.js_counting_text_length(h);
    const out = alloc(length + 1);
    try {
      core.js_counting_text_encode(h, this.ptr + this.offset, out);
      return new TextDecoder().decode(heap().subarray(out, out + length));
    } finally {
      core.js_free(out);
    }
  }
}

/** A scalable_bloom value: its stages, probed newest first. */
export class ScalableBloom {
  private constructor(
    private body: number,
    private length: number,
    private viewPtr: number,
  ) {
    freed.register(this, body);
    freed.register(this, viewPtr);
  }

  private static parse(body: number, length: number, message: string, code: string): ScalableBloom {
    const v = alloc(core.js_scalable_view_size());
    const status = core.js_scalable_parse(body, length, v);
    if (status !== 0) {
      core.js_free(v);
      core.js_free(body);
      throw statusError(status, message, code);
    }
    return new ScalableBloom(body, length, v);
  }

  /** scalable_bloom_in */
  static fromText(text: string): ScalableBloom {
    const message = "invalid input syntax for type scalable_bloom";
    if (typeof text !== "string") throw new BloomError(message, "22P02", "The text form is a string.");
    const bytes = new TextEncoder().encode(text);
    const p = copyIn(bytes);
    try {
      const lengthAt = scratch.get(8);
      let status = core.js_scalable_text_measure(p, bytes.length, lengthAt);
      if (status !== 0) throw statusError(status, message, "22P02");
      const length = view().getUint32(lengthAt, true);
      const body = alloc(length + 8, true);
      status = core.js_scalable_text_decode(p, bytes.length, body, lengthAt);
      if (status !== 0) {
        core.js_free(body);
        throw statusError(status, message, "22P02");
      }
      return ScalableBloom.parse(body, length, message, "22P02");
    } finally {
      core.js_free(p);
    }
  }

  /** scalable_bloom_recv: the binary form is the stored body. */
  static fromBinary(data: Uint8Array): ScalableBloom {
    const message = "invalid external binary representation for type scalable_bloom";
    if (!(data instanceof Uint8Array)) throw new BloomError(message, "22P03", "The binary form is a Uint8Array.");
    return ScalableBloom.parse(copyIn(data), data.length, message, "22P03");
  }

  get stages(): number {
    return core.js_scalable_stages(this.viewPtr);
  }

  contains(value: Value): boolean {
    const [p, len] = encodeOne(value);
    return core.js_scalable_contains(this.body, this.viewPtr, p, len) !== 0;
  }

  /** scalable_bloom_cardinality: the sum of the stages' estimates. */
  cardinality(): number {
    return core.js_scalable_cardinality(this.body, this.viewPtr);
  }

  toText(): string {
    const length = core.js_scalable_text_length(this.body, this.viewPtr);
    const out = alloc(length + 1);
    try {
      core.js_scalable_text_encode(this.body, this.viewPtr, out);
      return new TextDecoder().decode(heap().subarray(out, out + length));
    } finally {
      core.js_free(out);
    }
  }

  toBinary(): Uint8Array {
    return heap().slice(this.body, this.body + this.length);
  }
}
