// node-postgres: parse bloom, counting_bloom and scalable_bloom columns into
// the library's objects.  Text results only: node-postgres reads every
// result column as a UTF-8 string, binary ones too (it has no binary mode),
// which would mangle a filter's bytes, so no binary parser is registered.
// The types' OIDs are
// looked up (as pgvector-node's registerTypes does): an extension's types
// have no fixed OID, and to_regtype follows the session's search_path.
// Parameters need nothing: a Bloom has toPostgres() (its text form), and
// its toBinary() is sent as the binary form.
import { Bloom } from "./bloom.js";
import { CountingBloom, ScalableBloom } from "./others.js";

interface TypeParserClient {
  query(text: string): Promise<{ rows: Array<Record<string, unknown>> }>;
  setTypeParser(oid: number, format: "text", parser: (value: never) => unknown): void;
}

const TYPES = [
  ["bloom", Bloom],
  ["counting_bloom", CountingBloom],
  ["scalable_bloom", ScalableBloom],
] as const;

/** Register the extension's types on a pg Client (for a Pool: on its "connect" event). */
export async function registerTypes(client: TypeParserClient): Promise<void> {
  const result = await client.query(
    "SELECT " + TYPES.map(([name]) => `pg_catalog.to_regtype('${name}')::oid AS ${name}`).join(", "),
  );
  const row = result.rows[0];
  if (row.bloom === null || row.bloom === undefined)
    throw new Error("registerTypes: type bloom not found; run CREATE EXTENSION bloomfilter, or put its schema on the search_path");
  for (const [name, type] of TYPES) {
    const oid = Number(row[name]);
    if (!oid) continue;
    client.setTypeParser(oid, "text", ((text: string) => type.fromText(text)) as (value: never) => unknown);
  }
}
