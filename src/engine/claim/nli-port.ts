/**
 * The port through which a natural-language-inference model reads a passage against a claim.
 * The engine does not know how the model runs (ONNX in-process, a server): the CLI or server
 * builds an NliClassifier when `claim.stance = nli` and passes it in EnginePorts.nli; the stance
 * step uses it when present and the local stance model otherwise.
 */
export interface NliScores {
  /** The passage (premise) entails the claim (hypothesis). */
  entailment: number;
  neutral: number;
  /** The passage contradicts the claim. */
  contradiction: number;
}

export interface NliPair {
  premise: string;
  hypothesis: string;
}

export interface NliClassifier {
  /** A short name for what produced the scores, shown to users (e.g. "NLI model (deberta-v3-xsmall)"). */
  readonly name: string;
  /** One probability triple (summing to 1) per pair, in the order given. */
  classify(pairs: NliPair[], opts?: { signal?: AbortSignal }): Promise<NliScores[]>;
}
