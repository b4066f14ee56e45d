/**
 * What changed after signing, explained object by object (ISO 32000-1 §12.8.2 DocMDP/FieldMDP,
 * PAdES ETSI EN 319 142-1 §5.4 for DSS and document time-stamps; the rules follow the ones
 * pyHanko's difference analysis applies). Every object an incremental update adds, rewrites or
 * frees must be explained by one permitted kind of update; whatever is left over is named.
 *
 * Permitted kinds, from least to most: LTA updates (DSS/VRI, document time-stamps, Info,
 * bookkeeping), form filling (field values, signing empty signature fields, their appearances),
 * annotations (new or edited markup annotations). DocMDP /P 1 allows LTA updates only, /P 2 adds
 * form filling, /P 3 annotations; without a certification signature the default is pyHanko's:
 * form filling and signing, no annotations.
 * A FieldMDP lock forbids value changes to the fields it names.
 */
import { XMLValidator } from 'fast-xml-parser';
import { canonical, decodeTextString, isDict, isRef, nameOf, numberOf, stringOf, type PdfDict, type PdfValue } from './objects.js';
import { MAX_WALK_DEPTH, forEachLaterRevision, refsIn, type PdfState } from './pdf-state.js';
import { decodeStream, type IndirectObject, type PdfStructure } from './structure.js';

export type ModificationLevel = 'none' | 'lta_updates' | 'form_filling' | 'annotations';
const RANK: Record<ModificationLevel, number> = { none: 0, lta_updates: 1, form_filling: 2, annotations: 3 };

export interface Violation {
  /** The object the finding is about (0 when it is about the file as a whole). */
  num: number;
  reason: string;
  /**
   * Set when only one signature is violated: a FieldMDP lock binds the signature that set it
   * (pyHanko validates each signature with its own lock). The object number of its signature dictionary.
   */
  onlyFor?: number;
}

export interface RevisionDiff {
  revision: number;
  level: ModificationLevel;
  /** DocMDP /P in force for this revision (from the signed state before it), or null. */
  docMdp: number | null;
  violations: Violation[];
  /** How many objects the revision defined or freed, and how many were explained. */
  touched: number;
  explained: Map<number, string>;
  /** What this comparison could not check (encrypted strings). */
  notes: string[];
}

/**
 * In an encrypted file every string is ciphertext, and AES (with its random IV) gives a string a
 * new ciphertext each time its object is rewritten: strings cannot be compared or read there.
 * Set per analysis (the analysis is synchronous); see `diffRevision`.
 */
let encrypted = false;
/** Canonical form for comparisons; in an encrypted file every string is the same placeholder. */
const canon = (v: PdfValue | undefined): string => (encrypted ? canonical(blankStrings(v)) : canonical(v));
function blankStrings(v: PdfValue | undefined, depth = 0): PdfValue | undefined {
  if (v === null || v === undefined || typeof v !== 'object' || depth > MAX_WALK_DEPTH) return v;
  if (Array.isArray(v)) return v.map((x) => blankStrings(x, depth + 1) as PdfValue);
  if (v.kind === 'string') return { kind: 'string', bytes: '', hex: false };
  if (v.kind === 'dict') return { kind: 'dict', entries: new Map([...v.entries].map(([k, x]) => [k, blankStrings(x, depth + 1) as PdfValue])) };
  return v;
}

/** Keys a form field may change when it is filled (pyHanko's list, ISO 32000-1 §12.7.3). */
const VALUE_UPDATE_KEYS = new Set(['AP', 'AS', 'V', 'F', 'DA', 'Q', 'Ff', 'Type']);
/** Keys that may change even on a locked field. */
const ALWAYS_MODIFIABLE = new Set(['Ff', 'Type']);
const ACROFORM_FREE_KEYS = new Set(['Fields', 'DR', 'DA', 'Q', 'NeedAppearances']);
const CATALOG_FREE_KEYS = new Set(['AcroForm', 'DSS', 'Extensions', 'Metadata', 'MarkInfo', 'Version']);
const DSS_KEYS = new Set(['Type', 'VRI', 'Certs', 'CRLs', 'OCSPs']);
const VRI_KEYS = new Set(['Type', 'TU', 'TS', 'Cert', 'CRL', 'OCSP']);
const VRI_KEY_RE = /^[A-Z0-9]{40}$/;
const MAX_FIELDS = 10_000;

class Rejected extends Error {
  constructor(
    readonly num: number,
    reason: string,
  ) {
    super(reason);
  }
}

interface FieldSpec {
  name: string;
  num: number | undefined;
  dict: PdfDict;
  ft: string | undefined;
  /** Widget annotations that are separate objects (kids without /T). */
  widgets: number[];
}

interface Lock {
  action: string;
  fields: string[];
  by: string;
  /** Object number of the signature dictionary that set the lock (undefined: the certification's). */
  sigNum: number | undefined;
}

const keysOf = (d: PdfDict | undefined): Set<string> => new Set(d ? d.entries.keys() : []);

/** Keys whose values differ between two dictionaries, apart from `ignore`. */
function changedKeys(a: PdfDict | undefined, b: PdfDict | undefined, ignore: Set<string>): string[] {
  const keys = new Set([...keysOf(a), ...keysOf(b)]);
  return [...keys].filter((k) => !ignore.has(k) && canon(a?.entries.get(k)) !== canon(b?.entries.get(k)));
}

const sameObject = (bytes: Buffer, a: IndirectObject | undefined, b: IndirectObject | undefined): boolean =>
  !!a && !!b && canon(a.value) === canon(b.value) && (!a.stream) === (!b.stream) && (!a.stream || bytes.subarray(a.stream.start, a.stream.end).equals(bytes.subarray(b.stream!.start, b.stream!.end)));

function isVisible(d: PdfDict, state: PdfState): boolean {
  const rectArea = (x: PdfDict | undefined): number => {
    const r = x?.entries.get('Rect');
    const a = Array.isArray(r) ? r : undefined;
    if (!a || a.length !== 4 || !a.every((n) => typeof n === 'number')) return 0;
    const [x1, y1, x2, y2] = a as number[];
    return Math.abs(x1! - x2!) * Math.abs(y1! - y2!);
  };
  if (rectArea(d) > 0) return true;
  const kids = state.resolve(d.entries.get('Kids'));
  return Array.isArray(kids) && kids.some((k) => rectArea(state.dict(k)) > 0);
}

type FieldTree = Map<string, FieldSpec> & { duplicates: Set<string> };
const fieldTrees = new WeakMap<PdfState, FieldTree>();

/** The form's terminal fields by fully qualified name (§12.7.3.2), with inherited /FT; computed once per state. */
function fieldTree(state: PdfState): FieldTree {
  const known = fieldTrees.get(state);
  if (known) return known;
  const tree = readFieldTree(state);
  fieldTrees.set(state, tree);
  return tree;
}

function readFieldTree(state: PdfState): FieldTree {
  const duplicates = new Set<string>();
  const out = Object.assign(new Map<string, FieldSpec>(), { duplicates });
  const acro = state.dict(state.root?.entries.get('AcroForm'));
  const fields = state.resolve(acro?.entries.get('Fields'));
  if (!Array.isArray(fields)) return out;
  const seen = new Set<number>();
  const walk = (v: PdfValue, parent: string | undefined, ft: string | undefined, depth: number): void => {
    if (depth > MAX_WALK_DEPTH || out.size > MAX_FIELDS) return;
    if (isRef(v)) {
      if (seen.has(v.num)) return;
      seen.add(v.num);
    }
    const d = state.dict(v);
    if (!d) return;
    // Encrypted: the partial name is unreadable, so the field is named by its object number.
    const t = encrypted ? (d.entries.has('T') ? `#${isRef(v) ? v.num : '?'}` : undefined) : decodeTextString(stringOf(d, 'T'));
    const name = t === undefined ? parent ?? '' : parent ? `${parent}.${t}` : t;
    const myFt = nameOf(d, 'FT') ?? ft;
    const kids = state.resolve(d.entries.get('Kids'));
    const kidList = Array.isArray(kids) ? kids : [];
    const fieldKids = kidList.filter((k) => state.dict(k)?.entries.has('T'));
    if (fieldKids.length > 0) {
      for (const k of fieldKids) walk(k, name, myFt, depth + 1);
      return;
    }
    const widgets = kidList.filter(isRef).map((k) => k.num);
    if (out.has(name)) duplicates.add(name);
    out.set(name, { name, num: isRef(v) ? v.num : undefined, dict: d, ft: myFt, widgets });
  };
  for (const f of fields) walk(f, undefined, undefined, 0);
  return out;
}

/** DocMDP /P and FieldMDP locks in force in a state (signed signature fields only). */
function permissions(state: PdfState): { docMdp: number | null; locks: Lock[] } {
  let docMdp: number | null = null;
  const locks: Lock[] = [];
  const readRefs = (sig: PdfDict | undefined, by: string, sigNum: number | undefined): void => {
    const refs = state.resolve(sig?.entries.get('Reference'));
    if (!Array.isArray(refs)) return;
    for (const r of refs) {
      const rd = state.dict(r);
      const method = nameOf(rd, 'TransformMethod');
      const params = state.dict(rd?.entries.get('TransformParams'));
      if (method === 'DocMDP') {
        const p = numberOf(params, 'P') ?? 2;
        docMdp = docMdp === null ? p : Math.min(docMdp, p);
      } else if (method === 'FieldMDP' && params) locks.push(lockOf(state, params, by, sigNum));
    }
  };
  const perms = state.dict(state.root?.entries.get('Perms'));
  const certRef = perms?.entries.get('DocMDP');
  readRefs(state.dict(certRef), 'the certification signature', isRef(certRef) ? certRef.num : undefined);
  for (const f of fieldTree(state).values()) {
    if (f.ft !== 'Sig') continue;
    const v = f.dict.entries.get('V');
    const sig = state.dict(v);
    if (!sig) continue;
    const sigNum = isRef(v) ? v.num : undefined;
    const before = locks.length;
    readRefs(sig, `signature field "${f.name}"`, sigNum);
    const lock = state.dict(f.dict.entries.get('Lock'));
    if (locks.length === before && lock) locks.push(lockOf(state, lock, `signature field "${f.name}"`, sigNum));
  }
  return { docMdp, locks };
}

function lockOf(state: PdfState, d: PdfDict, by: string, sigNum: number | undefined): Lock {
  const fields = state.resolve(d.entries.get('Fields'));
  const names = Array.isArray(fields) ? fields.map((f) => (f && typeof f === 'object' && !Array.isArray(f) && f.kind === 'string' ? decodeTextString(f) ?? '' : '')) : [];
  return { action: nameOf(d, 'Action') ?? 'All', fields: names, by, sigNum };
}

function lockedBy(locks: Lock[], name: string): Lock | undefined {
  if (encrypted) return undefined; // names unreadable: reported as not checked (RevisionDiff.notes)
  const listed = (l: Lock): boolean => l.fields.some((f) => name === f || name.startsWith(`${f}.`));
  return locks.find((l) => (l.action === 'All' ? true : l.action === 'Include' ? listed(l) : l.action === 'Exclude' ? !listed(l) : true));
}

/** XMP that is well-formed XML without a DTD or entity declarations. */
function xmpAcceptable(data: Buffer | undefined): string | undefined {
  if (!data) return 'the metadata stream could not be decoded';
  const text = data.toString('utf8');
  if (/<!DOCTYPE|<!ENTITY/i.test(text)) return 'the metadata declares a DTD or entities';
  const body = text.replace(/<\?xpacket[^>]*\?>/g, '').replace(/^\uFEFF/, '').trim();
  // The root element must be x:xmpmeta (namespace adobe:ns:meta/), as XMP (ISO 16684-1 §7.3.3) writes it.
  const rootEl = /^(?:<\?[\s\S]*?\?>\s*|<!--[\s\S]*?-->\s*)*<([\w.-]+:)?xmpmeta\b[^>]*xmlns(?::[\w.-]+)?="adobe:ns:meta\/"/.exec(body);
  if (!rootEl) return 'the metadata is not an XMP packet (its root element is not x:xmpmeta)';
  const ok = XMLValidator.validate(body);
  return ok === true ? undefined : 'the metadata is not well-formed XML';
}

/**
 * Explains one revision (`next`: the state at its end) against a signed state `old`. The rules
 * register explained objects; anything the revision defines or frees that no rule explains
 * becomes a violation.
 */
export function diffRevision(bytes: Buffer, s: PdfStructure, old: PdfState, next: PdfState): RevisionDiff {
  const rev = s.revisions[next.revision]!;
  const explained = new Map<number, string>();
  const violations: Violation[] = [];
  let level: ModificationLevel = 'none';
  const bump = (l: ModificationLevel): void => {
    if (RANK[l] > RANK[level]) level = l;
  };
  encrypted = s.encrypted;
  const notes: string[] = [];
  const { docMdp, locks } = permissions(old);
  if (encrypted) notes.push(`the file is encrypted: strings (field names, values, XMP text) were not compared${locks.length ? ', and FieldMDP locks, which name fields, could not be checked' : ''}`);
  const touched = new Set<number>([...rev.objects.map((o) => o.num), ...rev.freed.filter((n) => old.has(n))]);
  const changed = (num: number): boolean => touched.has(num);
  const isNew = (num: number): boolean => !old.has(num) && next.has(num);
  const explain = (num: number, why: string, l: ModificationLevel): void => {
    if (!changed(num) || explained.has(num)) return;
    explained.set(num, why);
    bump(l);
  };
  /**
   * Explains an object reached through one path (/Root/AcroForm, …/Fields, /Root/DSS, a page's
   * /Annots…). Rewritten in place, it is explained only when that path was its one use in the
   * signed revision: a change made for one use must not silently change another (pyHanko's
   * "not all paths cleared").
   */
  const explainPath = (num: number, why: string, l: ModificationLevel): void => {
    if (!changed(num) || explained.has(num)) return;
    if (!isNew(num) && !sameObject(bytes, old.get(num), next.get(num)) && old.usageCount(num) > 1) {
      reject(num, `object ${num} (${why}) was rewritten in place, but the signed revision also uses it in ${old.usageCount(num) - 1} other place(s)`);
      return;
    }
    explain(num, why, l);
  };
  /** New objects a value depends on (transitively); existing objects are not explained this way. */
  const explainNewDeps = (v: PdfValue | undefined, why: string, l: ModificationLevel): void => {
    const queue = refsIn(v);
    const seen = new Set<number>();
    while (queue.length) {
      const n = queue.pop()!;
      if (seen.has(n) || !isNew(n)) continue;
      seen.add(n);
      explain(n, why, l);
      queue.push(...refsIn(next.get(n)?.value));
    }
  };
  const reject = (num: number, reason: string, onlyFor?: number): void => {
    violations.push(onlyFor === undefined ? { num, reason } : { num, reason, onlyFor });
  };
  const guard = (fn: () => void): void => {
    try {
      fn();
    } catch (e) {
      if (e instanceof Rejected) reject(e.num, e.message);
      else throw e;
    }
  };

  // Objects rewritten byte-for-byte the same change nothing.
  for (const o of rev.objects) if (sameObject(bytes, old.get(o.num), next.get(o.num))) explain(o.num, 'rewritten unchanged', 'none');

  // ---- bookkeeping: new xref and object streams (never ones that replace an object)
  for (const o of rev.objects) {
    const t = isDict(o.value) ? nameOf(o.value, 'Type') : undefined;
    if ((t === 'XRef' || t === 'ObjStm') && !old.has(o.num)) explain(o.num, `${t === 'XRef' ? 'cross-reference' : 'object'} stream`, 'none');
  }

  // ---- document information dictionary: direct strings only
  const infoRef = next.trailer?.entries.get('Info');
  if (isRef(infoRef) && changed(infoRef.num)) {
    const info = next.dict(infoRef);
    const oldInfo = old.trailer?.entries.get('Info');
    const sameOrFresh = isNew(infoRef.num) || (isRef(oldInfo) && oldInfo.num === infoRef.num);
    if (!sameOrFresh) reject(infoRef.num, `the trailer's /Info now points to object ${infoRef.num}, which the signed revision used for something else`);
    else if (info && [...info.entries.values()].every((v) => !refsIn(v).length)) explainPath(infoRef.num, 'document information dictionary', 'lta_updates');
    else reject(infoRef.num, 'the document information dictionary was replaced by something other than a dictionary of strings');
  }

  // ---- catalog
  const oldRoot = old.root;
  const newRoot = next.root;
  const rootRef = next.rootRef;
  guard(() => {
    if (!newRoot) throw new Rejected(0, 'the updated trailer has no readable catalog');
    const diff = changedKeys(oldRoot, newRoot, CATALOG_FREE_KEYS);
    const rootNum = isRef(rootRef) ? rootRef.num : 0;
    if (diff.length) throw new Rejected(rootNum, `the catalog's ${diff.map((k) => `/${k}`).join(', ')} changed`);
    if (isRef(rootRef) && (rootRef.num === (isRef(old.rootRef) ? old.rootRef.num : -1) || isNew(rootRef.num))) explain(rootRef.num, 'catalog (only /AcroForm, /DSS, /Metadata, /Extensions changed)', 'lta_updates');
    for (const key of ['Extensions', 'MarkInfo']) {
      const v = newRoot.entries.get(key);
      if (isRef(v)) {
        if (!isNew(v.num) && changed(v.num) && canon(old.get(v.num)?.value) !== canon(next.get(v.num)?.value) && old.usageCount(v.num) > 1)
          throw new Rejected(v.num, `/${key} was rewritten in place while other objects use it`);
        explain(v.num, `catalog /${key}`, 'lta_updates');
      }
      explainNewDeps(v, `catalog /${key}`, 'lta_updates');
    }
  });

  // ---- XMP metadata
  guard(() => {
    if (!newRoot?.entries.has('Metadata')) return;
    const m = newRoot.entries.get('Metadata');
    if (!isRef(m)) throw new Rejected(isRef(rootRef) ? rootRef.num : 0, 'the catalog /Metadata is not a stream reference');
    if (!changed(m.num) && canon(m) === canon(oldRoot?.entries.get('Metadata'))) return;
    const obj = next.get(m.num);
    if (!obj?.stream) throw new Rejected(m.num, 'the new /Metadata is not a stream');
    const oldM = oldRoot?.entries.get('Metadata');
    if (!isNew(m.num) && !(isRef(oldM) && oldM.num === m.num)) throw new Rejected(m.num, `the catalog /Metadata now points to object ${m.num}, which the signed revision used for something else`);
    if (!isNew(m.num) && old.usageCount(m.num) > 1) throw new Rejected(m.num, 'the metadata stream was rewritten in place while other objects use it');
    // Encrypted XMP (unless /EncryptMetadata false) cannot be read here; the note says so.
    const problem = encrypted ? undefined : xmpAcceptable(decodeStream(bytes, obj, s.inflateBudget));
    if (problem) throw new Rejected(m.num, `XMP metadata replaced: ${problem}`);
    explain(m.num, 'XMP metadata replaced (well-formed, no DTD)', 'lta_updates');
  });

  // ---- DSS (PAdES validation data)
  guard(() => checkDss(old, next, changed, isNew, explainPath));

  // ---- the form and its fields
  guard(() => checkForm(old, next, { changed, isNew, explain, explainPath, explainNewDeps, reject, docMdp, locks }));

  // ---- pages and their annotations
  guard(() => checkPages(old, next, { changed, isNew, explain, explainPath, explainNewDeps, reject, docMdp, locks }, fieldTree(old), fieldTree(next)));

  // ---- a bare signature dictionary nothing refers to (signers that keep no field): it signs, it shows nothing
  for (const o of rev.objects) {
    const d = isDict(o.value) ? o.value : undefined;
    const t = nameOf(d, 'Type');
    if (d && (t === 'Sig' || t === 'DocTimeStamp') && d.entries.has('ByteRange') && isNew(o.num) && next.usageCount(o.num) === 0 && refsIn(d).length === 0)
      explain(o.num, t === 'DocTimeStamp' ? 'document time-stamp' : 'signature dictionary', t === 'DocTimeStamp' ? 'lta_updates' : 'form_filling');
  }

  // ---- new objects nothing refers to: no viewer reaches them, so they cannot change what was signed
  // (Reachable means: from the new trailer or a rewritten object, through objects of this revision.
  // A new object that an older object already referred to fills a dangling reference: never an orphan.)
  const reached = new Set<number>();
  const queue = [...refsIn(next.trailer), ...rev.objects.filter((o) => old.has(o.num)).flatMap((o) => refsIn(next.get(o.num)?.value))];
  while (queue.length) {
    const n = queue.pop()!;
    if (reached.has(n) || !touched.has(n)) continue;
    reached.add(n);
    queue.push(...refsIn(next.get(n)?.value));
  }
  for (const o of rev.objects) if (isNew(o.num) && !explained.has(o.num) && !reached.has(o.num) && old.usageCount(o.num) === 0) explain(o.num, 'new object nothing refers to', 'none');

  // ---- freed objects: never explained (as pyHanko's default policy): a permitted update adds, it does not delete
  for (const num of rev.freed) {
    if (!old.has(num) || next.has(num)) continue;
    reject(num, old.usageCount(num) > 0 ? `object ${num} was freed while the signed revision used it` : `object ${num} of the signed revision was freed`);
  }

  // ---- the policy: what the DocMDP level allows
  if (docMdp === 1 && RANK[level] > RANK.lta_updates) reject(0, `the certification signature's DocMDP /P 1 allows no change, but this update is ${level.replace('_', ' ')}`);
  else if (docMdp === 2 && RANK[level] > RANK.form_filling) reject(0, `the certification signature's DocMDP /P 2 allows form filling and signing, but this update adds or edits annotations`);

  for (const num of touched) {
    if (explained.has(num) || violations.some((v) => v.num === num)) continue;
    const o = next.get(num) ?? old.get(num);
    const t = isDict(o?.value) ? nameOf(o!.value as PdfDict, 'Type') ?? nameOf(o!.value as PdfDict, 'Subtype') : undefined;
    const what = !next.has(num) ? 'freed' : isNew(num) ? 'added' : 'changed';
    reject(num, `object ${num}${t ? ` (/${t})` : o?.stream ? ' (stream)' : ''} ${what} and not explained by any permitted update`);
  }
  return { revision: next.revision, level, docMdp, violations, touched: touched.size, explained, notes };
}

interface Ctx {
  changed(num: number): boolean;
  isNew(num: number): boolean;
  explain(num: number, why: string, l: ModificationLevel): void;
  /** Like explain, but an object rewritten in place must have had this one use in the signed revision. */
  explainPath(num: number, why: string, l: ModificationLevel): void;
  explainNewDeps(v: PdfValue | undefined, why: string, l: ModificationLevel): void;
  reject(num: number, reason: string, onlyFor?: number): void;
  docMdp: number | null;
  locks: Lock[];
}

function checkDss(old: PdfState, next: PdfState, changed: (n: number) => boolean, isNew: (n: number) => boolean, explain: Ctx['explain']): void {
  const raw = next.root?.entries.get('DSS');
  const oldRaw = old.root?.entries.get('DSS');
  if (!raw) {
    if (oldRaw) throw new Rejected(isRef(oldRaw) ? oldRaw.num : 0, 'the DSS was removed');
    return;
  }
  const dss = next.dict(raw);
  if (!dss) throw new Rejected(isRef(raw) ? raw.num : 0, '/DSS is not a dictionary');
  if (isRef(raw)) {
    if (isRef(oldRaw) && oldRaw.num !== raw.num && !isNew(raw.num)) throw new Rejected(raw.num, '/DSS points to an object the signed revision used for something else');
    if (!isRef(oldRaw) && !isNew(raw.num) && changed(raw.num)) throw new Rejected(raw.num, '/DSS reuses an object the signed revision used for something else');
  }
  const extra = [...dss.entries.keys()].filter((k) => !DSS_KEYS.has(k));
  if (extra.length) throw new Rejected(isRef(raw) ? raw.num : 0, `unexpected keys in the DSS: ${extra.map((k) => `/${k}`).join(', ')}`);
  if (isRef(raw)) explain(raw.num, 'DSS dictionary', 'lta_updates');
  const streams = (d: PdfDict, key: string, where: string): void => {
    const v = d.entries.get(key);
    if (v === undefined) return;
    const arr = next.resolve(v);
    if (!Array.isArray(arr) || !arr.every((x) => isRef(x) && next.get(x.num)?.stream)) throw new Rejected(isRef(v) ? v.num : 0, `${where} /${key} is not an array of stream references`);
    if (isRef(v) && (isNew(v.num) || canon(v) === canon(old.dict(oldRaw)?.entries.get(key)))) explain(v.num, `${where} /${key} array`, 'lta_updates');
    for (const x of arr) if (isRef(x) && isNew(x.num)) explain(x.num, `${where} /${key} entry`, 'lta_updates');
  };
  for (const k of ['Certs', 'CRLs', 'OCSPs']) streams(dss, k, 'DSS');
  const vriRaw = dss.entries.get('VRI');
  if (vriRaw === undefined) {
    if (old.dict(oldRaw)?.entries.has('VRI')) throw new Rejected(0, 'the DSS /VRI was removed');
    return;
  }
  const vri = next.dict(vriRaw);
  if (!vri) throw new Rejected(isRef(vriRaw) ? vriRaw.num : 0, '/VRI is not a dictionary');
  if (isRef(vriRaw)) {
    const oldVriRaw = old.dict(oldRaw)?.entries.get('VRI');
    if (!isNew(vriRaw.num) && !(isRef(oldVriRaw) && oldVriRaw.num === vriRaw.num) && changed(vriRaw.num)) throw new Rejected(vriRaw.num, '/VRI reuses an object the signed revision used');
    explain(vriRaw.num, 'DSS /VRI dictionary', 'lta_updates');
  }
  const oldVri = old.dict(old.dict(oldRaw)?.entries.get('VRI'));
  for (const [k, v] of oldVri?.entries ?? []) if (canon(vri.entries.get(k)) !== canon(v)) throw new Rejected(isRef(vriRaw) ? vriRaw.num : 0, `VRI entry /${k} was modified or deleted`);
  for (const [k, v] of vri.entries) {
    if (oldVri?.entries.has(k)) continue;
    if (!VRI_KEY_RE.test(k)) throw new Rejected(isRef(vriRaw) ? vriRaw.num : 0, `VRI key /${k} is not a SHA-1 hash in upper-case hex`);
    const entry = next.dict(v);
    if (!entry || (isRef(v) && next.get(v.num)?.stream)) throw new Rejected(isRef(v) ? v.num : 0, `VRI entry /${k} is not a dictionary`);
    if (isRef(v) && isNew(v.num)) explain(v.num, 'VRI entry', 'lta_updates');
    const bad = [...entry.entries.keys()].filter((x) => !VRI_KEYS.has(x));
    if (bad.length) throw new Rejected(isRef(v) ? v.num : 0, `unexpected keys in VRI entry: ${bad.map((x) => `/${x}`).join(', ')}`);
    for (const x of ['Cert', 'CRL', 'OCSP']) streams(entry, x, 'VRI');
    const ts = entry.entries.get('TS');
    if (isRef(ts) && isNew(ts.num)) explain(ts.num, 'VRI time-stamp', 'lta_updates');
  }
}

/** An appearance update of one field or widget (§12.5.5): new streams, or an in-place rewrite of a stream used there alone. */
function checkAppearance(num: number, oldD: PdfDict, newD: PdfDict, old: PdfState, next: PdfState, c: Ctx, field: string): void {
  const oldRaw = oldD.entries.get('AP');
  const newRaw = newD.entries.get('AP');
  if (newRaw === undefined) return;
  const apNew = next.dict(newRaw);
  if (!apNew) throw new Rejected(num, `the /AP of field "${field}" is not a dictionary`);
  const apOld = old.dict(oldRaw);
  const apChanged = canon(oldRaw) !== canon(newRaw) || (isRef(newRaw) && c.changed(newRaw.num));
  if (isRef(newRaw)) {
    if (c.changed(newRaw.num) && !c.isNew(newRaw.num) && old.usageCount(newRaw.num) > 1)
      throw new Rejected(newRaw.num, `appearance dictionary ${newRaw.num} of field "${field}" was rewritten in place, but other objects use it too`);
    c.explain(newRaw.num, `appearance of field "${field}"`, 'form_filling');
  }
  // A shared appearance dictionary (pyHanko's "sneaky" cases): updating what it shows here changes it elsewhere too.
  const rewritesInPlace = ['N', 'R', 'D'].some((k) => {
    const v = apOld?.entries.get(k);
    return refsIn(v).some((n) => c.changed(n) && !c.isNew(n));
  });
  if ((apChanged || rewritesInPlace) && isRef(oldRaw) && old.usageCount(oldRaw.num) > 1)
    throw new Rejected(oldRaw.num, `the appearance of field "${field}" was updated, but its appearance dictionary ${oldRaw.num} is used in ${old.usageCount(oldRaw.num)} places`);
  for (const key of ['N', 'R', 'D']) {
    const nv = apNew.entries.get(key);
    if (nv === undefined) continue;
    c.explainNewDeps(nv, `appearance of field "${field}"`, 'form_filling');
    const ov = apOld?.entries.get(key);
    // The same stream rewritten in place: only when this appearance is its one user.
    if (isRef(nv) && isRef(ov) && nv.num === ov.num && c.changed(nv.num) && !c.isNew(nv.num)) {
      if (oldD.entries.has('AS')) throw new Rejected(nv.num, `appearance stream ${nv.num} of the on/off field "${field}" was rewritten in place`);
      const uses = old.usageCount(nv.num);
      if (uses > 1) throw new Rejected(nv.num, `appearance stream ${nv.num} of field "${field}" was rewritten in place, but ${uses} places use it`);
      c.explain(nv.num, `appearance stream of field "${field}" rewritten in place (used there only)`, 'form_filling');
      c.explainNewDeps(next.get(nv.num)?.value, `appearance of field "${field}"`, 'form_filling');
    }
  }
}

function checkForm(old: PdfState, next: PdfState, c: Ctx): void {
  const raw = next.root?.entries.get('AcroForm');
  const oldRaw = old.root?.entries.get('AcroForm');
  const acro = next.dict(raw);
  const oldAcro = old.dict(oldRaw);
  if (!acro) {
    if (oldAcro) throw new Rejected(isRef(oldRaw) ? oldRaw.num : 0, 'the form (/AcroForm) was removed');
    return;
  }
  if (isRef(raw)) {
    if (!c.isNew(raw.num) && !(isRef(oldRaw) && oldRaw.num === raw.num) && c.changed(raw.num)) throw new Rejected(raw.num, '/AcroForm reuses an object the signed revision used for something else');
    const diff = changedKeys(oldAcro, acro, ACROFORM_FREE_KEYS);
    if (diff.length) throw new Rejected(raw.num, `the form dictionary's ${diff.map((k) => `/${k}`).join(', ')} changed`);
    c.explainPath(raw.num, 'form dictionary', 'lta_updates');
  } else {
    const diff = changedKeys(oldAcro, acro, ACROFORM_FREE_KEYS);
    if (diff.length) throw new Rejected(0, `the form dictionary's ${diff.map((k) => `/${k}`).join(', ')} changed`);
  }
  const fieldsRaw = acro.entries.get('Fields');
  if (isRef(fieldsRaw) && (c.isNew(fieldsRaw.num) || canon(fieldsRaw) === canon(oldAcro?.entries.get('Fields')))) c.explainPath(fieldsRaw.num, 'form field list', 'lta_updates');
  // Default resources: new fonts for new appearances.
  const dr = acro.entries.get('DR');
  if (isRef(dr)) c.explainPath(dr.num, 'form default resources', 'form_filling');
  c.explainNewDeps(dr, 'form default resources', 'form_filling');

  const before = fieldTree(old);
  const after = fieldTree(next);
  for (const [name, f] of before) if (!after.has(name)) throw new Rejected(f.num ?? 0, `form field "${name}" was deleted`);
  for (const name of after.duplicates) if (!before.duplicates.has(name)) throw new Rejected(after.get(name)?.num ?? 0, `two form fields are now named "${name}"`);
  for (const [name, f] of after) {
    const p = before.get(name);
    if (p && p.ft !== f.ft) throw new Rejected(f.num ?? 0, `form field "${name}" changed type from /${p.ft ?? '?'} to /${f.ft ?? '?'}`);
  }
  for (const [name, f] of after) {
    const prev = before.get(name);
    const fnum = f.num ?? 0;
    if (!prev) {
      if (f.ft !== 'Sig') throw new Rejected(fnum, `a new form field "${name}" (${f.ft ? `/${f.ft}` : 'no type'}) was added; only signature fields may be added`);
      const visible = isVisible(f.dict, next);
      if (visible && c.docMdp !== null) throw new Rejected(fnum, `a visible signature field "${name}" was added after certification`);
      const l: ModificationLevel = visible ? 'form_filling' : 'lta_updates';
      if (f.num !== undefined && c.isNew(f.num)) c.explain(f.num, `new signature field "${name}"`, l);
      for (const k of ['AP', 'Lock', 'SV']) c.explainNewDeps(f.dict.entries.get(k), `new signature field "${name}"`, 'form_filling');
      const kids = f.dict.entries.get('Kids');
      if (isRef(kids) && c.isNew(kids.num)) c.explain(kids.num, `new signature field "${name}"`, l);
      for (const w of f.widgets) {
        if (c.isNew(w)) c.explain(w, `widget of new signature field "${name}"`, l);
        c.explainNewDeps(next.dict({ kind: 'ref', num: w, gen: 0 })?.entries.get('AP'), `widget of new signature field "${name}"`, 'form_filling');
      }
      signatureValue(f, next, c, name);
      continue;
    }
    const parts = [...(f.num !== undefined ? [f.num] : []), ...f.widgets];
    if (!parts.some((n) => c.changed(n)) && canon(prev.dict) === canon(f.dict)) continue;
    // Compare the field (and each widget) with what was signed.
    const pairs: [number, PdfDict, PdfDict][] = [];
    pairs.push([fnum, prev.dict, f.dict]);
    for (const w of f.widgets) {
      const ow = old.get(w)?.value;
      const nw = next.get(w)?.value;
      if (isDict(ow) && isDict(nw) && w !== f.num) pairs.push([w, ow, nw]);
      else if (!isDict(ow) && isDict(nw)) throw new Rejected(w, `a widget was added to the existing field "${name}"`);
    }
    let onlyAlwaysModifiable = true;
    for (const [num, od, nd] of pairs) {
      const diff = changedKeys(od, nd, VALUE_UPDATE_KEYS);
      if (diff.length) throw new Rejected(num, `form field "${name}": ${diff.map((k) => `/${k}`).join(', ')} changed, which filling a form does not change`);
      if (nameOf(od, 'Type') && nameOf(od, 'Type') !== nameOf(nd, 'Type')) throw new Rejected(num, `form field "${name}": /Type altered`);
      if (changedKeys(od, nd, ALWAYS_MODIFIABLE).length) onlyAlwaysModifiable = false;
    }
    if (f.ft === 'Sig') {
      const wasSigned = prev.dict.entries.has('V');
      const nowSigned = f.dict.entries.has('V');
      if (wasSigned) {
        if (!onlyAlwaysModifiable) throw new Rejected(fnum, `signature field "${name}" was already signed and was changed afterwards`);
        for (const [num] of pairs) c.explain(num, `signature field "${name}" (flags only)`, 'lta_updates');
        continue;
      }
      if (!nowSigned) {
        if (!onlyAlwaysModifiable) for (const [num, od, nd] of pairs) checkAppearance(num, od, nd, old, next, c, name);
        for (const [num] of pairs) c.explain(num, `empty signature field "${name}"`, 'form_filling');
        continue;
      }
      for (const [num, od, nd] of pairs) {
        checkAppearance(num, od, nd, old, next, c, name);
        c.explain(num, `signature field "${name}" signed`, 'lta_updates');
      }
      signatureValue(f, next, c, name);
      continue;
    }
    // An ordinary field filled in.
    if (!onlyAlwaysModifiable) {
      if (c.docMdp === 1) throw new Rejected(fnum, `form field "${name}" was filled in, but the certification signature's DocMDP /P 1 allows no change`);
      // Every lock that covers the field is violated; each binds only the signature that set it, so
      // the update is otherwise explained as form filling (other signatures may allow it).
      for (const lock of c.locks.filter((l) => lockedBy([l], name)))
        c.reject(fnum, `form field "${name}" was changed, but ${lock.by} locks it (FieldMDP /${lock.action})`, lock.sigNum);
    }
    for (const [num, od, nd] of pairs) {
      checkAppearance(num, od, nd, old, next, c, name);
      c.explain(num, `form field "${name}" filled in`, onlyAlwaysModifiable ? 'lta_updates' : 'form_filling');
    }
    if (canon(prev.dict.entries.get('V')) !== canon(f.dict.entries.get('V'))) c.explainNewDeps(f.dict.entries.get('V'), `value of form field "${name}"`, 'form_filling');
  }
}

/** The /V of a newly signed field: a new signature dictionary (a document time-stamp when invisible counts as an LTA update). */
function signatureValue(f: FieldSpec, next: PdfState, c: Ctx, name: string): void {
  const v = f.dict.entries.get('V');
  if (v === undefined) return;
  if (!isRef(v)) throw new Rejected(f.num ?? 0, `the value of signature field "${name}" is not an indirect reference`);
  const sig = next.dict(v);
  if (!sig) throw new Rejected(v.num, `the value of signature field "${name}" is not a dictionary`);
  if (!c.isNew(v.num)) throw new Rejected(v.num, `signature field "${name}" was signed with object ${v.num}, which the signed revision already used`);
  const ts = nameOf(sig, 'Type') === 'DocTimeStamp' && !isVisible(f.dict, next);
  c.explain(v.num, ts ? `document time-stamp in "${name}"` : `signature in "${name}"`, ts ? 'lta_updates' : 'form_filling');
  c.explainNewDeps(sig, `signature in "${name}"`, ts ? 'lta_updates' : 'form_filling');
}

function checkPages(old: PdfState, next: PdfState, c: Ctx, before: Map<string, FieldSpec>, after: Map<string, FieldSpec>): void {
  // Widgets that belong to signature fields added in this revision may be added to pages.
  const newSigWidgets = new Set<number>();
  for (const [name, f] of after)
    if (!before.has(name) && f.ft === 'Sig') {
      if (f.num !== undefined && f.dict.entries.get('Subtype') && nameOf(f.dict, 'Subtype') === 'Widget') newSigWidgets.add(f.num);
      for (const w of f.widgets) newSigWidgets.add(w);
    }
  // Like pyHanko's default policy, only a certification that allows annotations (DocMDP /P 3) permits them.
  const annotsAllowed = c.docMdp !== null && c.docMdp >= 3;
  const notAllowed = c.docMdp === null ? 'no certification signature allows annotations (DocMDP /P 3)' : `the certification signature's DocMDP /P ${c.docMdp} does not allow annotations`;
  const walk = (oldNode: PdfValue | undefined, newNode: PdfValue | undefined, depth: number, seen: Set<number>): void => {
    if (depth > MAX_WALK_DEPTH) throw new Rejected(0, 'the page tree is nested too deeply to compare');
    const od = old.dict(oldNode);
    const nd = next.dict(newNode);
    const num = isRef(newNode) ? newNode.num : 0;
    if (isRef(newNode)) {
      if (seen.has(newNode.num)) return;
      seen.add(newNode.num);
    }
    if (!od || !nd) throw new Rejected(num, 'a page tree node was removed or replaced');
    if (isRef(oldNode) && isRef(newNode) && oldNode.num !== newNode.num) throw new Rejected(num, 'the page tree points to different objects');
    const type = nameOf(od, 'Type');
    // The same object version in both states is the same dictionary: no need to compare it.
    const unchanged = isRef(oldNode) && isRef(newNode) && oldNode.num === newNode.num && !c.changed(newNode.num);
    if (type === 'Pages' || (type !== 'Page' && od.entries.has('Kids'))) {
      const diff = unchanged ? [] : changedKeys(od, nd, new Set());
      if (diff.length) throw new Rejected(num, `page tree node ${num}: ${diff.map((k) => `/${k}`).join(', ')} changed (pages added, removed or reordered)`);
      const kids = old.resolve(od.entries.get('Kids'));
      const newKids = next.resolve(nd.entries.get('Kids'));
      if (Array.isArray(kids) && Array.isArray(newKids)) kids.forEach((k, i) => walk(k, newKids[i], depth + 1, seen));
      return;
    }
    // A page: only its /Annots may change.
    const annotsRef = nd.entries.get('Annots');
    if (unchanged && !(isRef(annotsRef) && c.changed(annotsRef.num))) return;
    const diff = changedKeys(od, nd, new Set(['Annots']));
    if (diff.length) throw new Rejected(num, `page ${num}: ${diff.map((k) => `/${k}`).join(', ')} changed`);
    const oldAnnotsRaw = od.entries.get('Annots');
    const newAnnotsRaw = nd.entries.get('Annots');
    const oa = old.resolve(oldAnnotsRaw);
    const na = next.resolve(newAnnotsRaw);
    const oldSet = new Set((Array.isArray(oa) ? oa : []).filter(isRef).map((r) => r.num));
    const newList = Array.isArray(na) ? na : [];
    if (newList.some((x) => !isRef(x))) throw new Rejected(num, `page ${num}: /Annots holds direct objects`);
    const newSet = new Set(newList.filter(isRef).map((r) => r.num));
    const deleted = [...oldSet].filter((n) => !newSet.has(n));
    if (deleted.length) throw new Rejected(deleted[0]!, `annotation(s) ${deleted.join(', ')} were removed from page ${num}`);
    const added = [...newSet].filter((n) => !oldSet.has(n));
    for (const a of added) {
      if (newSigWidgets.has(a)) continue;
      const ad = next.dict({ kind: 'ref', num: a, gen: 0 });
      if (!c.isNew(a)) throw new Rejected(a, `object ${a}, which the signed revision already used, was added to page ${num} as an annotation`);
      if (!ad || nameOf(ad, 'Subtype') === 'Widget') throw new Rejected(a, `a widget ${a} not belonging to a new signature field was added to page ${num}`);
      if (!annotsAllowed) throw new Rejected(a, `an annotation (/${nameOf(ad, 'Subtype') ?? '?'}) was added to page ${num}, but ${notAllowed}`);
      c.explain(a, `new annotation (/${nameOf(ad, 'Subtype') ?? '?'}) on page ${num}`, 'annotations');
      c.explainNewDeps(ad, `new annotation on page ${num}`, 'annotations');
    }
    // Existing markup annotations edited (annotation level; never widgets: those are form fields).
    for (const a of newSet) {
      if (!oldSet.has(a) || !c.changed(a)) continue;
      const o = old.dict({ kind: 'ref', num: a, gen: 0 });
      const n = next.dict({ kind: 'ref', num: a, gen: 0 });
      if (!o || !n || nameOf(o, 'Subtype') === 'Widget' || nameOf(o, 'Subtype') !== nameOf(n, 'Subtype')) continue;
      if (!annotsAllowed) throw new Rejected(a, `annotation ${a} on page ${num} was edited, but ${notAllowed}`);
      c.explain(a, `annotation ${a} edited`, 'annotations');
      c.explainNewDeps(n, `annotation ${a} edited`, 'annotations');
    }
    const level: ModificationLevel = added.every((a) => newSigWidgets.has(a)) ? 'lta_updates' : 'annotations';
    if (isRef(newNode)) c.explain(newNode.num, `page ${num} /Annots updated`, level);
    if (isRef(newAnnotsRaw) && (c.isNew(newAnnotsRaw.num) || (isRef(oldAnnotsRaw) && oldAnnotsRaw.num === newAnnotsRaw.num))) c.explainPath(newAnnotsRaw.num, `page ${num} /Annots array`, level);
  };
  walk(old.root?.entries.get('Pages'), next.root?.entries.get('Pages'), 0, new Set());
}

/** Every revision after the first, explained against the one before it. */
/** At most this many (signed revision, later revision) comparisons are made; the rest are reported as not analysed. */
export const MAX_DIFF_REVISIONS = 1000;
/** At most this many signed revisions serve as bases; later signatures' changes are then reported as not analysed. */
export const MAX_BASES = 100;

/**
 * For each signed revision in `bases`, every later revision explained against it (pyHanko's
 * review: each later revision is compared with the signed one, so a change is judged by what the
 * signer saw). At most MAX_DIFF_REVISIONS comparisons in all.
 */
export function diffRevisions(bytes: Buffer, s: PdfStructure, bases: Iterable<number> = [0]): Map<number, RevisionDiff[]> {
  const out = new Map<number, RevisionDiff[]>();
  // Each base is a snapshot of the document: at most MAX_BASES of them (the earliest signatures).
  const wanted = new Set([...new Set(bases)].filter((b) => b >= 0 && b < s.revisions.length - 1).sort((x, y) => x - y).slice(0, MAX_BASES));
  for (const b of wanted) out.set(b, []);
  let done = 0;
  forEachLaterRevision(s, wanted, (base, next) => {
    if (done++ < MAX_DIFF_REVISIONS) out.get(base.revision)!.push(diffRevision(bytes, s, base, next));
  });
  return out;
}

export function describeLevel(l: ModificationLevel): string {
  return { none: 'no change', lta_updates: 'long-term-validation data', form_filling: 'form filling and signing', annotations: 'annotations' }[l];
}
