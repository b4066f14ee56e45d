// Function lengths in a TypeScript file without a TypeScript parser (TypeScript 7's compiler has
// no JavaScript API): a small tokenizer that skips comments, strings and template literals, then
// brace matching. A `{` opens a function body when it follows `=>`, or a `)` that does not close
// an if/for/while/switch/catch head, or such a `)` plus a return-type annotation. Used by
// test/unit/architecture.test.ts.
const CONTROL = new Set(['if', 'for', 'while', 'switch', 'catch', 'with']);

function tokens(text) {
  const out = [];
  let line = 1;
  let i = 0;
  const templates = []; // brace depth at each open `${`
  let depth = 0;
  const push = (t) => out.push({ t, line });
  const skipString = (q) => {
    i++;
    while (i < text.length && text[i] !== q) {
      if (text[i] === '\\') i++;
      else if (text[i] === '\n') line++;
      i++;
    }
    i++;
  };
  const skipTemplate = () => {
    // from just after ` or after the } closing a ${…}: to the closing ` or into the next ${
    while (i < text.length) {
      const c = text[i];
      if (c === '\\') { i += 2; continue; }
      if (c === '\n') line++;
      if (c === '`') { i++; return; }
      if (c === '$' && text[i + 1] === '{') { i += 2; templates.push(depth); depth++; push('${'); return; }
      i++;
    }
  };
  while (i < text.length) {
    const c = text[i];
    if (c === '\n') { line++; i++; continue; }
    if (c === ' ' || c === '\t' || c === '\r') { i++; continue; }
    if (c === '/' && text[i + 1] === '/') { while (i < text.length && text[i] !== '\n') i++; continue; }
    if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      for (let k = i; k < (end < 0 ? text.length : end); k++) if (text[k] === '\n') line++;
      i = end < 0 ? text.length : end + 2;
      continue;
    }
    if (c === '"' || c === "'") { skipString(c); push('str'); continue; }
    if (c === '`') { i++; push('str'); skipTemplate(); continue; }
    if (/[A-Za-z_$]/.test(c)) {
      let j = i + 1;
      while (j < text.length && /[\w$]/.test(text[j])) j++;
      push(text.slice(i, j));
      i = j;
      continue;
    }
    if (c === '=' && text[i + 1] === '>') { push('=>'); i += 2; continue; }
    if (c === '{') { depth++; push('{'); i++; continue; }
    if (c === '}') {
      depth--;
      if (templates.length && templates[templates.length - 1] === depth) { templates.pop(); i++; push('}$'); skipTemplate(); continue; }
      push('}');
      i++;
      continue;
    }
    push(c);
    i++;
  }
  return out;
}

const CLOSE = { ')': '(', ']': '[', '}': '{', '>': '<' };
const OPEN = new Set(['(', '[', '{', '<', '${']);

/** Index of the `(` matching the `)` at k, or -1. */
function openParen(toks, k) {
  let d = 0;
  for (let j = k; j >= 0; j--) {
    if (toks[j].t === ')') d++;
    else if (toks[j].t === '(') { d--; if (d === 0) return j; }
  }
  return -1;
}

function opensFunction(toks, k) {
  const prev = toks[k - 1];
  if (!prev) return false;
  if (prev.t === '=>') return true;
  if (prev.t === ')') {
    const o = openParen(toks, k - 1);
    return o > 0 && !CONTROL.has(toks[o - 1].t);
  }
  // a return-type annotation: walk back to `) :` at depth 0
  let d = 0;
  for (let j = k - 1; j >= 0 && j > k - 80; j--) {
    const t = toks[j].t;
    if (t === '}' && d === 0) return false; // the end of the previous statement
    if (CLOSE[t]) d++;
    else if (OPEN.has(t)) { if (d === 0) return false; d--; }
    else if (d === 0 && (t === ';' || t === '=' || t === ',')) return false;
    else if (d === 0 && t === ':') return toks[j - 1]?.t === ')';
  }
  return false;
}

/** [{ line, lines }] for every function body in the text (nested ones too), `lines` counted from the `{` to its `}`. */
export function functionLengths(text) {
  const toks = tokens(text);
  const stack = [];
  const out = [];
  toks.forEach((tok, k) => {
    if (tok.t === '{') stack.push({ fn: opensFunction(toks, k), line: tok.line });
    else if (tok.t === '}') {
      const open = stack.pop();
      if (open?.fn) out.push({ line: open.line, lines: tok.line - open.line + 1 });
    }
  });
  return out;
}
