// Exploration only (scripts/fit-ai-text.mjs --extra THIS): part-of-speech rates from wink-nlp 2.4.0
// with its wink-eng-lite-web-model 1.8.1 (both MIT). Not a dependency of the project: install them
// anywhere (`npm install wink-nlp@2.4.0 wink-eng-lite-web-model@1.8.1` in a scratch folder) and
// point WINK_DIR at that folder. Measured in docs/document.md "Fourth round"; not kept (its cost
// alone rules it out for the engine: about 0.5 s to load the model and 0.3 s per 60,000 characters).
//
// Six rates per word token (punctuation, symbols and spaces left out), chosen before measuring:
// nouns, proper nouns, verbs (with auxiliaries), adjectives, adverbs and pronouns — the
// nominal-versus-verbal balance on which instruction-tuned models are reported to differ from
// human writers (denser nouns and adjectives, fewer pronouns).
import { createRequire } from 'node:module';
import { resolve } from 'node:path';

const require = createRequire(resolve(process.env.WINK_DIR ?? '.', 'package.json'));
const winkNLP = require('wink-nlp');
const nlp = winkNLP(require('wink-eng-lite-web-model'));
const its = nlp.its;

const GROUPS = { pos_noun_rate: ['NOUN'], pos_propn_rate: ['PROPN'], pos_verb_rate: ['VERB', 'AUX'], pos_adj_rate: ['ADJ'], pos_adv_rate: ['ADV'], pos_pron_rate: ['PRON'] };
const SKIP = new Set(['PUNCT', 'SYM', 'SPACE', 'X']);
const picked = process.env.EXTRA ? process.env.EXTRA.split(',') : Object.keys(GROUPS);
export const names = picked;

/** The rates of `text` (the text whose style the features read). */
export function features(_lower, text) {
  const tags = nlp.readDoc(text).tokens().out(its.pos).filter((t) => !SKIP.has(t));
  const n = Math.max(1, tags.length);
  return picked.map((name) => tags.filter((t) => GROUPS[name].includes(t)).length / n);
}
