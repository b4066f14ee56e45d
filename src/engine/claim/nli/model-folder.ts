/**
 * What an NLI model folder holds, and the record `verity models pull` writes beside the files
 * (sizes and SHA-256 of what it downloaded), so a load can tell a truncated file from a good one
 * before handing it to the runtime.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export const MODEL_FILES = {
  config: 'config.json',
  tokenizer: 'tokenizer.json',
  tokenizerConfig: 'tokenizer_config.json',
  onnx: 'model.onnx',
} as const;

/** Every file a folder must hold, in the order they are checked. */
export const REQUIRED_FILES = [MODEL_FILES.config, MODEL_FILES.tokenizer, MODEL_FILES.onnx] as const;

export const RECORD_FILE = 'verity-model.json';

export interface ModelRecord {
  kind: 'nli';
  /** The model's id, e.g. `Xenova/nli-deberta-v3-xsmall`. */
  id: string;
  /** Where the files came from (a URL base or a folder). */
  source: string;
  pulled_at: string;
  /**
   * `pinned`: the digests were in verity's manifest and matched; `recorded`: no pinned digest
   * existed, so the download's own digests were recorded (trust on first use) and later checks
   * compare against them; `local`: copied from a folder the user named, digests recorded.
   */
  integrity: 'pinned' | 'recorded' | 'local';
  files: Record<string, { size: number; sha256: string }>;
}

export function readRecord(dir: string): ModelRecord | undefined {
  let text: string;
  try {
    text = readFileSync(join(dir, RECORD_FILE), 'utf8');
  } catch {
    return undefined;
  }
  try {
    const r = JSON.parse(text) as ModelRecord;
    return r && typeof r === 'object' && r.files && typeof r.files === 'object' ? r : undefined;
  } catch {
    return undefined;
  }
}

export interface FolderCheck {
  /** true: every recorded file has its recorded size and SHA-256; false: one does not; null: no record to check against. */
  verified: boolean | null;
  problems: string[];
  /** Bytes of the model's files. */
  size: number;
}

/** Hashes every recorded file (a few hundred ms for a quantised model) and compares. */
export async function checkModelFolder(dir: string): Promise<FolderCheck> {
  const { createHash } = await import('node:crypto');
  const { createReadStream, statSync } = await import('node:fs');
  const record = readRecord(dir);
  const problems: string[] = [];
  let size = 0;
  const names = record ? Object.keys(record.files) : [...REQUIRED_FILES, MODEL_FILES.tokenizerConfig];
  for (const name of names) {
    const path = join(dir, name);
    let st;
    try {
      st = statSync(path);
    } catch {
      if (record || (REQUIRED_FILES as readonly string[]).includes(name)) problems.push(`${name} is missing`);
      continue;
    }
    size += st.size;
    const want = record?.files[name];
    if (!want) continue;
    if (st.size !== want.size) {
      problems.push(`${name} has ${st.size} bytes, the download had ${want.size}`);
      continue;
    }
    const hash = createHash('sha256');
    for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
    if (hash.digest('hex') !== want.sha256) problems.push(`${name} has changed since it was downloaded (SHA-256 differs)`);
  }
  return { verified: record ? problems.length === 0 : null, problems, size };
}
