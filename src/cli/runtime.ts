/**
 * What every command gets: the context, parsed global flags, the output, the config, and the
 * resolved connection (embedded sandbox / embedded live / remote) with its key.
 */
import { readFileSync } from 'node:fs';
import { VerityError } from '../api/errors.js';
import { loadConfig } from '../config/load.js';
import { keyEnvironment, type ConfigFile, type KeyEnvironment } from '../config/schema.js';
import type { Engine, EngineConfig, EnginePorts } from '../engine/types.js';
import type { Store } from '../store/local/database.js';
import { Output } from '../output/output.js';
import { readStdin, type CliContext } from './context.js';

export interface GlobalOptions {
  json?: boolean;
  ndjson?: boolean;
  /** `true`: --remote without a URL (the environment's or the profile's base_url). */
  remote?: string | true;
  local?: boolean;
  key?: string;
  keyFile?: string;
  test?: boolean;
  live?: boolean;
  profile?: string;
  quiet?: boolean;
  verbose?: boolean;
  color?: boolean; // commander's --no-color sets color=false
}

export interface ResolvedKey {
  value: string;
  environment: KeyEnvironment;
  /** Where it came from, for messages: never the value itself. */
  origin: 'stdin' | 'key-file' | 'flag' | 'VERITY_API_KEY' | 'profile';
  /** Stored key name when it came from the config. */
  name?: string;
}

export type Connection =
  | { mode: 'embedded'; sandbox: boolean; key?: ResolvedKey }
  | { mode: 'remote'; baseUrl: string; key?: ResolvedKey };

export class CliRuntime {
  readonly out: Output;
  private configCache: ConfigFile | undefined;
  private keyCache: Promise<ResolvedKey | undefined> | undefined;
  private stdinTaken = false;

  constructor(
    readonly ctx: CliContext,
    readonly opts: GlobalOptions,
  ) {
    this.out = new Output(ctx, {
      json: Boolean(opts.json),
      ndjson: Boolean(opts.ndjson),
      quiet: Boolean(opts.quiet),
      verbose: Boolean(opts.verbose),
      noColor: opts.color === false,
    });
  }

  config(): ConfigFile {
    this.configCache ??= loadConfig(this.ctx.paths.configFile);
    return this.configCache;
  }

  profileName(): string {
    return this.opts.profile ?? this.ctx.env.VERITY_PROFILE ?? this.config().profile;
  }

  /** stdin can be read once: by `-` input or by `--key -`, not both. */
  async takeStdin(purpose: string, limitBytes?: number): Promise<Buffer> {
    if (this.stdinTaken)
      throw new VerityError('VALIDATION_FAILED', `stdin is already used for the API key; cannot also read ${purpose} from it`);
    this.stdinTaken = true;
    // On a terminal nothing else says the command is waiting for typed input (as `cat -` would).
    if (this.ctx.stdin.isTTY && !this.opts.quiet) {
      const eof = process.platform === 'win32' ? 'Ctrl-Z then Enter' : 'Ctrl-D';
      this.ctx.stderr.write(`Reading ${purpose} from stdin; end with ${eof} on a line of its own\n`);
    }
    return readStdin(this.ctx, limitBytes);
  }

  /** Key precedence (DESIGN.md): --key-file / --key - > --key > VERITY_API_KEY > active profile. */
  key(): Promise<ResolvedKey | undefined> {
    this.keyCache ??= this.resolveKey();
    return this.keyCache;
  }

  private async resolveKey(): Promise<ResolvedKey | undefined> {
    const check = (value: string, origin: ResolvedKey['origin'], name?: string): ResolvedKey => {
      const v = value.trim();
      const environment = keyEnvironment(v);
      if (!environment)
        throw new VerityError('VALIDATION_FAILED', `The API key from ${origin} is not a verity key (expected vty_live_… or vty_test_…)`, {
          details: [{ field: 'key', issue: 'expected vty_live_<32 base62> or vty_test_<32 base62>' }],
        });
      return { value: v, environment, origin, ...(name ? { name } : {}) };
    };
    if (this.opts.keyFile) {
      let text: string;
      try {
        text = readFileSync(this.opts.keyFile, 'utf8');
      } catch {
        throw new VerityError('VALIDATION_FAILED', `Cannot read the key file ${this.opts.keyFile}`, {
          details: [{ field: 'key-file', issue: 'file not found or not readable' }],
        });
      }
      return check(text, 'key-file');
    }
    if (this.opts.key === '-') {
      this.stdinTaken = true;
      return check((await readStdin(this.ctx, 4096)).toString('utf8'), 'stdin');
    }
    if (this.opts.key) {
      const stored = this.config().keys[this.opts.key];
      if (stored) return { value: stored.value, environment: stored.environment, origin: 'profile', name: this.opts.key };
      if (this.opts.key.startsWith('vty_')) return check(this.opts.key, 'flag');
      throw new VerityError('VALIDATION_FAILED', `No stored key named "${this.opts.key}" (see \`verity keys list\`)`, {
        details: [{ field: 'key', issue: 'not a stored key name, "-" or a key value' }],
      });
    }
    if (this.ctx.env.VERITY_API_KEY) return check(this.ctx.env.VERITY_API_KEY, 'VERITY_API_KEY');
    const cfg = this.config();
    const profile = cfg.profiles[this.profileName()];
    let name = profile?.key;
    // --test / --live pick a stored key of that environment when the profile's key is of the other.
    const wanted: KeyEnvironment | undefined = this.opts.test ? 'test' : this.opts.live ? 'live' : undefined;
    if (wanted && (!name || cfg.keys[name]?.environment !== wanted))
      name = Object.entries(cfg.keys).find(([, k]) => k.environment === wanted)?.[0] ?? name;
    if (!name) return undefined;
    const stored = cfg.keys[name];
    if (!stored) throw new VerityError('VALIDATION_FAILED', `Profile "${this.profileName()}" uses key "${name}", which is not stored`);
    return { value: stored.value, environment: stored.environment, origin: 'profile', name };
  }

  /** Mode (DESIGN.md): --remote > VERITY_BASE_URL > profile base_url > embedded; --local forces embedded. */
  async connection(): Promise<Connection> {
    if (this.opts.test && this.opts.live) throw new VerityError('VALIDATION_FAILED', '--test and --live cannot be used together');
    const named = this.opts.remote === true ? undefined : this.opts.remote;
    const baseUrl = this.opts.local ? undefined : (named ?? this.ctx.env.VERITY_BASE_URL ?? this.config().profiles[this.profileName()]?.base_url);
    if (this.opts.remote === true && !baseUrl && !this.opts.local)
      throw new VerityError('VALIDATION_FAILED', `--remote without a URL uses the profile's base_url, and profile "${this.profileName()}" has none`, {
        details: [{ field: 'remote', issue: 'give the service URL, or set it once: verity config set profiles.NAME.base_url URL (or VERITY_BASE_URL)' }],
      });
    const key = await this.key();
    if (baseUrl) {
      try {
        const u = new URL(baseUrl);
        if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error('scheme');
      } catch {
        throw new VerityError('VALIDATION_FAILED', `--remote must be an http(s) URL, got "${baseUrl}"`, {
          details: [{ field: 'remote', issue: 'must be an http(s) URL' }],
        });
      }
      return { mode: 'remote', baseUrl, key };
    }
    const sandbox = this.opts.test ? true : this.opts.live ? false : key?.environment === 'test';
    return { mode: 'embedded', sandbox, key };
  }

  /** The embedded store (data folder, or --db where a command offers it); the caller closes it. */
  async openStore(path = this.ctx.paths.storeFile): Promise<Store> {
    const { openStore } = await import('../store/local/database.js');
    return openStore(path);
  }

  engineConfig(): EngineConfig {
    const c = this.config();
    return { contact: c.contact, sources: c.sources as EngineConfig['sources'], llm: c.llm, c2pa: c.c2pa, media: c.media, document: c.document };
  }

  /** The Engine for this invocation: in-process (sandbox or live) or remote. */
  async engine(): Promise<{ engine: Engine; connection: Connection; close(): void }> {
    const connection = await this.connection();
    // A PDF thread started early (bin/run-bundle.js) reads the named file ahead for the local
    // engine only: a remote or sandbox run stops it now rather than when the command ends.
    if (connection.mode === 'remote') {
      this.ctx.earlyPdfThread?.discard('remote');
      this.ctx.earlyMedia?.discard();
      const [{ createRemoteEngine }, { userAgent }, { retryLine }] = await Promise.all([
        import('../client/remote-engine.js'),
        import('../engine/default-ports.js'),
        import('./retry-notice.js'),
      ]);
      const engine = createRemoteEngine({
        baseUrl: connection.baseUrl,
        apiKey: connection.key?.value,
        userAgent: userAgent(),
        onRetry: (n) => this.out.warn(retryLine(n)),
      });
      return { engine, connection, close() {} };
    }
    if (connection.sandbox) {
      this.ctx.earlyPdfThread?.discard('sandbox');
      this.ctx.earlyMedia?.discard();
      // The sandbox never touches the network or the store, so it skips the HTTP layer (undici
      // alone costs more start-up time than the rest of a sandbox run) and fails loudly if used.
      const { createSandboxEngine } = await import('../engine/index.js');
      return { engine: createSandboxEngine(sandboxPorts(this.engineConfig(), this.ctx.clock)), connection, close() {} };
    }
    // The local engine will run: the early thread may read the named file's pages ahead too (told
    // before the engine's modules load, so that its reading overlaps that too).
    this.ctx.earlyPdfThread?.go();
    const [{ createEngine }, { createDefaultPorts }] = await Promise.all([import('../engine/index.js'), import('../engine/default-ports.js')]);
    const ports = createDefaultPorts({
      config: this.engineConfig(),
      storeFile: this.ctx.paths.storeFile,
      cacheDir: this.ctx.paths.cacheDir,
      ssrfGuard: false,
      clock: this.ctx.clock,
    });
    ports.pdfThread = this.ctx.earlyPdfThread;
    ports.earlyMedia = this.ctx.earlyMedia;
    // A code-cache folder of the host's choosing, when it gave one (ports use paths.cacheDir).
    if (this.ctx.codeCacheDir) ports.codeCacheDir = this.ctx.codeCacheDir;
    const claim = this.config().claim;
    if (claim?.stance === 'nli') {
      // The ONNX runtime itself loads on the first claim that needs it, not here.
      const { configuredNliClassifier } = await import('../engine/claim/nli/configured.js');
      ports.nli = configuredNliClassifier(this.ctx.paths.dataDir, claim.nli_model);
    }
    const engine = createEngine(ports);
    if (this.ctx.analysisInWorker) {
      // Document analysis runs in a worker thread, so Ctrl-C is handled at once.
      const job = { config: this.engineConfig(), storeFile: this.ctx.paths.storeFile, cacheDir: this.ctx.paths.cacheDir, codeCacheDir: this.ctx.codeCacheDir };
      // A worker costs ~0.1 s of CPU to start; a small inline file is analysed in less than the
      // 0.5 s a Ctrl-C may take, so it stays on this thread. URLs (size unknown) and larger files go
      // out. Media always stays here: decoding runs in libvips's threads, the analysis area is
      // bounded (docs/media.md), so its longest synchronous stretch is ~0.1–0.2 s, and the worker's
      // start was about a fifth of a 12 MP photo's whole-process cost.
      const local = { document: engine.verifyDocument };
      engine.verifyDocument = (req, opts) =>
        (smallInline(req, opts?.inputBytes)
          ? local.document(req, opts)
          : inWorker(
              { ...job, kind: 'document', req, inputBytes: opts?.inputBytes },
              opts?.signal,
              this.ctx.earlyAnalysisWorker,
            )) as ReturnType<Engine['verifyDocument']>;
    }
    return { engine, connection, close: () => ports.closeStore() };
  }
}

/** Inline input (no URL to fetch) of at most about 1 MB: bytes, or base64 or text in the request. */
const SMALL_INLINE_CHARS = 1_400_000;
function smallInline(req: object, bytes: Buffer | undefined): boolean {
  const r = req as { url?: unknown; source?: unknown; file?: unknown; content?: unknown };
  if (r.url !== undefined || r.source === 'url') return false;
  if (bytes) return Math.ceil(bytes.length / 3) * 4 <= SMALL_INLINE_CHARS;
  const data = typeof r.file === 'string' ? r.file : typeof r.content === 'string' ? r.content : '';
  return data.length <= SMALL_INLINE_CHARS;
}

/** One verification in a worker thread (engine-worker.ts); an abort terminates the worker. */
async function inWorker(job: import('./engine-worker.js').WorkerJob, signal: AbortSignal | undefined, early?: import('./engine-worker-boot.js').EarlyAnalysisWorker): Promise<unknown> {
  signal?.throwIfAborted();
  // One started before the CLI loaded (bin/run-bundle.js) gets the job as a message.
  let worker = early?.take();
  if (worker) {
    // Kept alive again, as a worker started here is: it writes its code cache as it ends.
    worker.ref();
    worker.postMessage(job);
  } else {
    const { startCachedWorker, engineWorkerBundle } = await import('./engine-worker-boot.js');
    signal?.throwIfAborted();
    worker = await startCachedWorker(await engineWorkerBundle(), job);
  }
  return new Promise((resolve, reject) => {
    const onAbort = (): void => {
      void worker.terminate();
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    worker.once('message', (m: import('./engine-worker.js').WorkerReply) => {
      signal?.removeEventListener('abort', onAbort);
      if ('ok' in m) resolve(m.ok);
      else reject(VerityError.fromBody(m.error));
    });
    worker.once('error', (err) => {
      signal?.removeEventListener('abort', onAbort);
      reject(err);
    });
    worker.once('exit', (code) => {
      signal?.removeEventListener('abort', onAbort);
      if (code !== 0) reject(new VerityError('INTERNAL_ERROR', `the analysis worker stopped (exit ${code})`));
    });
  });
}

/** Ports for the sandbox (SPEC 5.2: simulated data, no network): any network use is a bug. */
function sandboxPorts(config: EngineConfig, clock: CliContext['clock']): EnginePorts {
  const offline = async (): Promise<never> => {
    throw new VerityError('INTERNAL_ERROR', 'The sandbox tried to use the network');
  };
  return { clock, config, http: { request: offline, getJson: offline }, fetchInput: offline };
}
