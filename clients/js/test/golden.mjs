// Reading clients/golden/golden.json (written from a real server by
// clients/golden/make.py): the server's text of a value, as the value the
// client takes for that SQL type.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import * as bf from "../dist/esm/index.js";

export const goldenPath = fileURLToPath(new URL("../../golden/golden.json", import.meta.url));
export const golden = JSON.parse(readFileSync(goldenPath, "utf8"));
if (golden.format !== "bloomfilter-golden/1") throw new Error(`unknown golden format ${golden.format}`);

/** A float8 as the server prints it (shortest exact digits, Infinity, NaN). */
export const serverFloat = (text) => Number(text);

/** "YYYY-MM-DD HH:MM:SS[.ffffff][+00]" as microseconds since 2000-01-01 UTC. */
export function timestampMicros(text) {
  const match = /^(\d{4,})-(\d\d)-(\d\d)(?: (\d\d):(\d\d):(\d\d)(?:\.(\d{1,6}))?)?(?:\+00)?$/.exec(text);
  if (!match) throw new Error(`unexpected timestamp ${text}`);
  const [, y, mo, d, h = "0", mi = "0", s = "0", f = ""] = match;
  const date = new Date(Date.UTC(2000, Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s)));
  date.setUTCFullYear(Number(y));
  return BigInt(date.getTime() - 946684800000) * 1000n + BigInt(f.padEnd(6, "0"));
}

function hexBytes(hex) {
  return new Uint8Array(Buffer.from(hex, "hex"));
}

/** The client value of the server's text of a value of the SQL type. */
export function clientValue(type, text) {
  switch (type) {
    case "int2": return bf.Int2(BigInt(text));
    case "int4": return bf.Int4(BigInt(text));
    case "int8": return BigInt(text);
    case "numeric": return bf.Numeric(text);
    case "float4": return bf.Float4(serverFloat(text));
    case "float8": return bf.Float8(serverFloat(text));
    case "text": case "varchar": case "name": return text;
    case "bpchar": return bf.Bpchar(text);
    case "bytea": return hexBytes(text.slice(2));
    case "uuid": return bf.Uuid(text);
    case "date": return bf.PgDate(text);
    case "timestamp": return bf.Timestamp(timestampMicros(text));
    case "timestamptz": return bf.Timestamp(timestampMicros(text));
    case "bool": return text === "true";
    default: throw new Error(`no client value for ${type}`);
  }
}

export { hexBytes };
