/**
 * Premise/hypothesis pairs → model inputs, with the model's own tokenizer (tokenizer.json, read
 * by @huggingface/tokenizers) and a bounded length: the tokenizer library has no truncation, so
 * the pair is cut here, the passage first (claims are short; passages are what run long), and the
 * special tokens ([CLS] … [SEP] … [SEP] or the model's template) are added afterwards by the
 * tokenizer's own post-processor, exactly as it would for an uncut pair.
 */
import type { Tokenizer } from '@huggingface/tokenizers';
import type { NliPair } from '../nli-port.js';

export interface EncodedPair {
  ids: number[];
  typeIds: number[];
}

export interface PairEncoder {
  encode(pair: NliPair): EncodedPair;
  /** Tokens per pair at most, special tokens included. */
  readonly maxLength: number;
  readonly padId: number;
}

type PostProcess = (a: string[], b: string[] | null, addSpecial: boolean) => { tokens: string[]; token_type_ids?: number[] };

export function createPairEncoder(tokenizer: Tokenizer, maxLength: number, padToken?: string): PairEncoder {
  // Added tokens ([CLS], [SEP], <s>…) are not always in the model's vocabulary table.
  const added = new Map<string, number>();
  for (const [id, t] of tokenizer.get_added_tokens_decoder()) added.set(t.content, id);
  const idOf = (t: string): number | undefined => added.get(t) ?? tokenizer.token_to_id(t);
  const unk = (tokenizer.model as unknown as { unk_token_id?: number } | null)?.unk_token_id ?? 0;
  const post = tokenizer.post_processor as unknown as PostProcess | null;
  const assemble = (a: string[], b: string[]): { tokens: string[]; types: number[] } => {
    if (!post) return { tokens: [...a, ...b], types: [...a.map(() => 0), ...b.map(() => 1)] };
    const r = post(a, b, true);
    return { tokens: r.tokens, types: r.token_type_ids ?? r.tokens.map(() => 0) };
  };
  // How many tokens the template adds around a pair, measured once on a one-token pair.
  const specials = assemble(['a'], ['b']).tokens.length - 2;
  const budget = maxLength - specials;
  if (budget < 2) throw new Error(`maximum length ${maxLength} leaves no room for a pair`);
  const padId = (padToken !== undefined ? idOf(padToken) : undefined) ?? idOf('[PAD]') ?? idOf('<pad>') ?? 0;

  return {
    maxLength,
    padId,
    encode({ premise, hypothesis }) {
      let a = tokenizer.tokenize(clip(premise, maxLength));
      let b = tokenizer.tokenize(clip(hypothesis, maxLength));
      // The claim (hypothesis) is what is being judged, so the passage gives way first; the
      // claim is cut only when it alone would take more than half of the room.
      if (a.length + b.length > budget) {
        const keepB = Math.min(b.length, Math.max(budget - a.length, Math.ceil(budget / 2)));
        b = b.slice(0, keepB);
        a = a.slice(0, budget - b.length);
      }
      const { tokens, types } = assemble(a, b);
      return { ids: tokens.map((t) => idOf(t) ?? unk), typeIds: types };
    },
  };
}

/**
 * Text far longer than the token budget is cut before tokenizing, so a megabyte of passage costs
 * no more than a page: no subword token of these tokenizers spans 16 characters on average, so
 * 16 characters per token keeps everything that can fit. Cut at a space, not inside a word.
 */
function clip(text: string, maxTokens: number): string {
  const limit = maxTokens * 16;
  if (text.length <= limit) return text;
  const space = text.lastIndexOf(' ', limit);
  return text.slice(0, space > limit / 2 ? space : limit);
}
