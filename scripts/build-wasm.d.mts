/** The TypeScript module (base64 of the binary) that scripts/build-wasm.mjs writes for one .wat file. */
export function wasmModuleSource(watPath: string): Promise<string>;
export const WASM_SOURCES: string[];
