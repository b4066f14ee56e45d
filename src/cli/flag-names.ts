/**
 * Errors in the words the user typed: the engine and the API name request fields
 * (`max_evidence`); on the command line the same thing is a flag (`--max-evidence`) or the
 * positional argument. Only the human-facing text changes; `details[].field` in a `--json`
 * error body keeps the API's field name, which scripts may match on.
 */
import type { Command, Option } from 'commander';
import { VerityError } from '../api/errors.js';

const camel = (field: string): string => field.replace(/[_-]([a-z])/g, (_, c: string) => c.toUpperCase());

function findOption(cmd: Command, attr: string): { owner: Command; opt: Option } | undefined {
  for (let c: Command | null = cmd; c; c = c.parent) {
    const opt = c.options.find((o) => o.attributeName() === attr);
    if (opt) return { owner: c, opt };
  }
  return undefined;
}

/**
 * Request fields a command's first positional argument can carry (the same value has a flag
 * too: `verify claim TEXT` or `--claim TEXT`). Fields named like the argument count as well.
 */
const POSITIONAL_FIELDS: Record<string, string[]> = { text: ['claim'], input: ['url', 'file', 'content'] };

/** How the user gave `field`: the flag they typed, or the positional argument. */
export function flagFor(cmd: Command, field: string): string | undefined {
  const top = field.split('.')[0]!;
  const hit = findOption(cmd, camel(top));
  if (hit && hit.owner.getOptionValueSource(hit.opt.attributeName()) === 'cli') return hit.opt.long;
  const arg = cmd.registeredArguments[0];
  const fromArg = arg && (camel(arg.name()) === camel(top) || POSITIONAL_FIELDS[arg.name()]?.includes(top));
  if (arg && fromArg && cmd.args.length) return hit && hit.owner === cmd ? `<${arg.name()}> (or ${hit.opt.long})` : `<${arg.name()}>`;
  return hit?.opt.long;
}

export function nameFlags(err: VerityError, cmd: Command): VerityError {
  if (!err.details?.length) return err;
  let message = err.message;
  for (const d of err.details) {
    const flag = flagFor(cmd, d.field);
    if (!flag) continue;
    const field = d.field.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    // "Invalid max_evidence: …" → "Invalid --max-evidence: …"; other mentions only when they
    // are unmistakably identifiers (snake_case), never plain words like "file".
    message = message.replace(new RegExp(`^Invalid ${field}(?=:)`), `Invalid ${flag}`);
    if (/[_.]/.test(d.field)) message = message.replace(new RegExp(`(^|[^\\w-])${field}(?![\\w-])`, 'g'), `$1${flag}`);
  }
  if (message === err.message) return err;
  return err.with({ message });
}
