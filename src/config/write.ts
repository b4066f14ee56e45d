/**
 * Changing the config file. Every change is read → modify → validate (the same zod schema that
 * reading uses) → write through `conf`, which writes atomically (temp file + rename) with mode
 * 0600, so a crash mid-write never leaves half a file and stored keys are never world-readable.
 * `conf` is imported here, lazily, because only the commands that change the file need it.
 */
import { chmodSync, mkdirSync } from 'node:fs';
import { basename, dirname, extname } from 'node:path';
import { VerityError } from '../api/errors.js';
import { loadConfig } from './load.js';
import { ConfigFile } from './schema.js';

export const CONFIG_FILE_MODE = 0o600;
export const CONFIG_DIR_MODE = 0o700;

/**
 * Applies `change` to a copy of the current config and writes the result. The change may mutate
 * its argument or return a new object. Returns what was written.
 */
export async function updateConfig(file: string, change: (cfg: ConfigFile) => ConfigFile | void): Promise<ConfigFile> {
  // loadConfig gives a readable VerityError for a broken file; conf would throw a bare SyntaxError.
  const current = structuredClone(loadConfig(file));
  const next = change(current) ?? current;
  const parsed = ConfigFile.safeParse(next);
  if (!parsed.success) {
    const i = parsed.error.issues[0]!;
    const field = i.path.map(String).join('.') || '(root)';
    throw new VerityError('VALIDATION_FAILED', `Invalid setting ${field}: ${i.message}`, {
      details: parsed.error.issues.map((x) => ({ field: x.path.map(String).join('.') || '(root)', issue: x.message })),
    });
  }
  await writeConfig(file, parsed.data);
  return parsed.data;
}

async function writeConfig(file: string, value: ConfigFile): Promise<void> {
  const dir = dirname(file);
  // conf creates the folder without a mode; create it first so it is private to the user.
  mkdirSync(dir, { recursive: true, mode: CONFIG_DIR_MODE });
  const { default: Conf } = await import('conf');
  const ext = extname(file);
  const conf = new Conf<Record<string, unknown>>({
    cwd: dir,
    configName: basename(file, ext),
    fileExtension: ext.replace(/^\./, ''),
    configFileMode: CONFIG_FILE_MODE,
    // Our own zod schema validates; conf must never silently wipe a file it cannot parse.
    clearInvalidConfig: false,
    accessPropertiesByDotNotation: false,
    serialize: (v) => `${JSON.stringify(v, null, 2)}\n`,
  });
  conf.store = JSON.parse(JSON.stringify(tidy(value))) as Record<string, unknown>;
  // An existing file keeps its old mode across conf's rename on some systems; make sure.
  chmodSync(file, CONFIG_FILE_MODE);
}

/** Drops emptied optional sections (`sources.x`, `llm`, `c2pa`, `document`) so the file stays readable by hand. */
function tidy(cfg: ConfigFile): ConfigFile {
  const out: ConfigFile = { ...cfg };
  const isEmpty = (o: object | undefined): boolean => !o || Object.values(o).every((x) => x === undefined);
  if (out.sources) {
    const kept = Object.entries(out.sources).filter(([, v]) => !isEmpty(v));
    if (kept.length) out.sources = Object.fromEntries(kept);
    else delete out.sources;
  }
  if (isEmpty(out.llm)) delete out.llm;
  if (isEmpty(out.c2pa)) delete out.c2pa;
  if (isEmpty(out.media)) delete out.media;
  if (isEmpty(out.document)) delete out.document;
  return out;
}
