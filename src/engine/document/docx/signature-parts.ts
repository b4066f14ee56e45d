/**
 * Which parts of an OPC package are XML signatures (ECMA-376 Part 2 §13: one `<Signature>` per
 * `_xmlsignatures/*.xml` part). Kept apart from xml-signature.ts so that a package without
 * signatures never loads xml-crypto, xmldom and pkijs (~0.1 s of module loading per file).
 */

/** A signature part's path inside the package. */
export const SIGNATURE_PART = /^_xmlsignatures\/[^/]+\.xml$/i;

/** The package's signature parts, sorted (the order they are verified and reported in). */
export function signaturePartPaths(paths: Iterable<string>): string[] {
  return [...paths].filter((p) => SIGNATURE_PART.test(p)).sort();
}
