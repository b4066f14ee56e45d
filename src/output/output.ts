/**
 * The only code that writes to stdout/stderr. stdout is data, stderr is talk (DESIGN.md): with
 * --json one JSON document goes to stdout (the result, or the API's error body); spinners and
 * progress appear only when stderr is a TTY and never with --json.
 */
import type { VerityError } from '../api/errors.js';
import { wrapLines } from './wrap.js';
import { colorLevel, hyperlinkSupport, makeStyle, type Style } from './style.js';

export interface OutputOptions {
  json: boolean;
  ndjson: boolean;
  quiet: boolean;
  verbose: boolean;
  noColor: boolean;
}

export interface Spinner {
  update(text: string): void;
  succeed(text?: string): void;
  fail(text?: string): void;
  stop(): void;
}

const silentSpinner: Spinner = { update() {}, succeed() {}, fail() {}, stop() {} };

/** The streams and environment output writes to (the CLI's context, or a test's fakes). */
export interface OutputContext {
  stdout: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  stderr: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  env: NodeJS.ProcessEnv;
}

export class Output {
  readonly style: Style;
  readonly errStyle: Style;
  constructor(
    private readonly ctx: OutputContext,
    readonly opts: OutputOptions,
  ) {
    this.style = makeStyle(colorLevel(ctx.env, ctx.stdout.isTTY, opts.noColor));
    this.errStyle = makeStyle(colorLevel(ctx.env, ctx.stderr.isTTY, opts.noColor));
  }

  get machine(): boolean {
    return this.opts.json || this.opts.ndjson;
  }

  /**
   * Width to lay human output out in: the terminal's, else $COLUMNS, else null, meaning no
   * wrapping at all (piped output keeps whole lines for grep and pagers).
   */
  get width(): number | null {
    const c = this.ctx.stdout.columns;
    if (this.ctx.stdout.isTTY && c) return c;
    const env = Number(this.ctx.env.COLUMNS);
    return Number.isInteger(env) && env > 0 ? env : null;
  }

  /**
   * Width to wrap talk on stderr in: the terminal's columns, else none (a log file or a pipe gets
   * whole lines). A terminal would otherwise cut words at its edge.
   */
  get errWidth(): number | null {
    return this.ctx.stderr.isTTY && this.ctx.stderr.columns ? this.ctx.stderr.columns : null;
  }

  /** Writes talk to stderr, wrapped between words on a terminal (continuation lines indented). */
  private talk(text: string): void {
    this.ctx.stderr.write(ensureNewline(wrapLines(text, this.errWidth)));
  }

  /** Whether links may be printed as OSC 8 hyperlinks (style.ts hyperlinkSupport). */
  get hyperlinks(): boolean {
    return hyperlinkSupport(this.ctx.env, this.ctx.stdout.isTTY, this.opts.noColor);
  }

  /** One JSON document on stdout. */
  json(value: unknown): void {
    this.ctx.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
  }

  /**
   * A list for scripts: every `--json` list is `{ "data": [ … ] }`, the shape of the service's
   * list bodies (docs/cli.md "JSON output"), so `jq '.data[]'` works on all of them.
   */
  jsonList(rows: unknown[]): void {
    this.json({ data: rows });
  }

  /** One compact JSON object per line (streams: listen, batch). */
  ndjson(value: unknown): void {
    this.ctx.stdout.write(`${JSON.stringify(value)}\n`);
  }

  /** A result: JSON for scripts, the human rendering otherwise. */
  result<T>(value: T, render: (value: T, out: Output) => string): void {
    if (this.opts.ndjson) this.ndjson(value);
    else if (this.opts.json) this.json(value);
    else this.ctx.stdout.write(ensureNewline(render(value, this)));
  }

  /** Text already laid out, whole lines with their newlines, written to stdout as is (a stream's batch of lines). */
  write(text: string): void {
    this.ctx.stdout.write(text);
  }

  /** Human text on stdout (lists, tables); with --json, commands call json() instead. */
  print(text: string): void {
    this.ctx.stdout.write(ensureNewline(text));
  }

  info(message: string): void {
    if (!this.opts.quiet) this.talk(message);
  }

  success(message: string): void {
    if (!this.opts.quiet) this.talk(`${this.errStyle.green('✓')} ${message}`);
  }

  /**
   * The result came from the engine on this machine, where nothing is billed: human output says
   * so instead of showing `credits_used` as a charge (the JSON keeps SPEC's number).
   */
  notBilled = false;

  /** The spinner on screen, cleared while a warning is written so the two do not interleave. */
  private activeSpinner: { clear(): void; render(): void; isSpinning: boolean } | undefined;

  warn(message: string): void {
    const spinning = this.activeSpinner?.isSpinning ? this.activeSpinner : undefined;
    spinning?.clear();
    this.talk(`${this.errStyle.yellow('warning:')} ${message}`);
    spinning?.render();
  }

  debug(message: string): void {
    if (this.opts.verbose) this.talk(this.errStyle.dim(message));
  }

  /** A failure: the API's error body on stdout with --json, a readable message on stderr always. */
  /** `label` turns an API field into what the user typed (flag-names.ts). */
  error(err: VerityError, hint?: string, label: (field: string) => string = (f) => f): void {
    if (this.opts.json) this.json(err.toBody());
    else if (this.opts.ndjson) this.ndjson(err.toBody());
    const s = this.errStyle;
    let text = `${s.red('error:')} ${err.message} ${s.dim(`(${err.code})`)}`;
    // One line per flag and problem: `--sources a,b` with two unknown names is one line, not two.
    const lines = new Set<string>();
    for (const d of err.details ?? []) if (!err.message.includes(d.issue)) lines.add(`${label(d.field)}\u0000${d.issue}`);
    for (const l of lines) {
      const [field, issue] = l.split('\u0000') as [string, string];
      text += `\n  ${s.bold(field)}: ${issue}`;
    }
    if (err.requiredPlan) text += `\n  required plan: ${err.requiredPlan}`;
    if (hint) text += `\n${s.dim('hint:')} ${hint}`;
    this.talk(text);
  }

  /**
   * A progress bar on stderr for long imports, redrawn at most every 100 ms, only for a person
   * watching (TTY, not --json/--quiet). `update(done, total)`: total null when unknown.
   */
  progress(label: string): { update(done: number, total: number | null, detail?: string): void; done(): void } {
    const live = !this.machine && !this.opts.quiet && Boolean(this.ctx.stderr.isTTY) && !this.ctx.env.CI;
    let last = 0;
    const draw = (done: number, total: number | null, detail = ''): void => {
      const pct = total ? Math.min(1, done / total) : null;
      const width = 24;
      const bar = pct === null ? '' : `${'█'.repeat(Math.round(pct * width))}${'░'.repeat(width - Math.round(pct * width))} ${(pct * 100).toFixed(0).padStart(3)}% `;
      this.ctx.stderr.write(`\r\u001b[2K${label} ${bar}${detail}`);
    };
    return {
      update: (done, total, detail) => {
        if (!live) return;
        const now = Date.now();
        if (now - last < 100) return;
        last = now;
        draw(done, total, detail);
      },
      done: () => {
        if (live) this.ctx.stderr.write('\r\u001b[2K');
      },
    };
  }

  /** An ora spinner on stderr, only for a person watching (TTY, not --json, not --quiet). */
  async spinner(text: string): Promise<Spinner> {
    if (this.machine || this.opts.quiet || !this.ctx.stderr.isTTY || this.ctx.env.CI) return silentSpinner;
    const { default: ora } = await import('ora');
    // discardStdin would put the terminal in raw mode, where Ctrl-C is a keypress instead of
    // SIGINT: interrupts must reach main.ts (DESIGN.md: Ctrl-C ends any command within 0.5 s).
    const s = ora({ text, stream: this.ctx.stderr as NodeJS.WriteStream, color: 'cyan', discardStdin: false }).start();
    this.activeSpinner = s;
    const done = (): void => {
      if (this.activeSpinner === s) this.activeSpinner = undefined;
    };
    return {
      update: (t) => void (s.text = t),
      succeed: (t) => void (s.succeed(t), done()),
      fail: (t) => void (s.fail(t), done()),
      stop: () => void (s.stop(), done()),
    };
  }
}

const ensureNewline = (s: string): string => (s.endsWith('\n') ? s : `${s}\n`);
