/**
 * The NLI classifier `claim.stance = nli` asks for: the chosen (or default) model's folder under
 * the data folder. Nothing is read or loaded here; a missing or broken model is reported by the
 * first classify() with the file and the `verity models pull nli` command that fixes it.
 */
import { createOnnxNliClassifier, type OnnxNliClassifier } from './classifier.js';
import { DEFAULT_NLI_MODEL, nliModelDir } from './manifest.js';

export function configuredNliClassifier(dataDir: string, model?: string): OnnxNliClassifier {
  const id = model ?? DEFAULT_NLI_MODEL;
  return createOnnxNliClassifier({
    dir: nliModelDir(dataDir, id),
    id,
    pullHint: id === DEFAULT_NLI_MODEL ? 'verity models pull nli' : `verity models pull nli --model ${id}`,
  });
}
