/**
 * Which files make an NLI model, and where `verity models pull nli` fetches them from.
 *
 * The default is an ONNX export of cross-encoder/nli-deberta-v3-xsmall (DeBERTa-v3 xsmall
 * fine-tuned on SNLI + MultiNLI; labels contradiction / entailment / neutral) published on the
 * Hugging Face hub as `Xenova/nli-deberta-v3-xsmall`, int8-quantised (`onnx/model_quantized.onnx`).
 *
 * Integrity: a file with `sha256`/`size` here must match them or the pull fails. The default's
 * digests are NOT pinned yet: the machine this was written on could not reach the hub to read
 * them, and a digest nobody has checked is worse than none. So the first pull records the
 * digests of what it downloaded (`integrity: "recorded"` in the folder's verity-model.json) and
 * every later check (`verity models list`, every load's size check) compares against that record.
 * Pin them here once read from the hub's file listing (each LFS file shows its SHA-256).
 */
import { join } from 'node:path';

export interface ModelFile {
  /** Path in the model repository. */
  remote: string;
  /** Name in verity's model folder. */
  local: string;
  size?: number;
  sha256?: string;
}

export interface ModelManifest {
  kind: 'nli';
  id: string;
  /** Files are fetched from `${base}/${remote}`. */
  base: string;
  files: ModelFile[];
}

export const DEFAULT_NLI_MODEL = 'Xenova/nli-deberta-v3-xsmall';
export const DEFAULT_ONNX_FILE = 'onnx/model_quantized.onnx';

/** Digests pinned per model id and repository path (none verified yet; see above). */
const PINNED: Record<string, Record<string, { size: number; sha256: string }>> = {};

const ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,95}\/[A-Za-z0-9][A-Za-z0-9._-]{0,95}$/;

export function isModelId(id: string): boolean {
  return ID.test(id) && !id.includes('..');
}

/** The manifest for a hub model id (`owner/name`), optionally with another ONNX file of it. */
export function nliManifest(id = DEFAULT_NLI_MODEL, onnxFile = DEFAULT_ONNX_FILE, revision = 'main'): ModelManifest {
  const pins = PINNED[id] ?? {};
  const file = (remote: string, local: string): ModelFile => ({ remote, local, ...(pins[remote] ?? {}) });
  return {
    kind: 'nli',
    id,
    base: `https://huggingface.co/${id}/resolve/${revision}`,
    files: [
      file('config.json', 'config.json'),
      file('tokenizer.json', 'tokenizer.json'),
      file('tokenizer_config.json', 'tokenizer_config.json'),
      file(onnxFile, 'model.onnx'),
    ],
  };
}

/** The folder of a model under the data folder: `<data>/models/nli/<owner>--<name>`. */
export function nliModelDir(dataDir: string, id = DEFAULT_NLI_MODEL): string {
  return join(nliModelsRoot(dataDir), id.replace('/', '--'));
}

export function nliModelsRoot(dataDir: string): string {
  return join(dataDir, 'models', 'nli');
}
