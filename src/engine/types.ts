/**
 * The engine's interface and the ports it is given. The engine never reads process.env or argv,
 * never writes to a stream and never imports cli/, output/ or server/: everything outside comes
 * in through EnginePorts (DESIGN.md "Layout and layers").
 */
import type { Plan } from '../api/errors.js';
import type {
  BusinessRequest,
  BusinessRequestInput,
  ClaimRequest,
  ClaimRequestInput,
  DocumentRequest,
  DocumentRequestInput,
  MediaRequest,
  MediaRequestInput,
} from '../api/requests.js';
import type { BusinessResult, ClaimResult, DocumentResult, MediaResult } from '../api/results.js';
import type { HttpClient } from '../sources/http.js';
import type { Store } from '../store/local/database.js';
import type { NliClassifier } from './claim/nli-port.js';
import type { EarlyPdfThread } from './document/extraction-thread.js';
import type { EarlyMedia } from './media/early-media.js';

// The clock and the settings and input-fetch types the sources use too: defined beside them.
import type { Clock, EngineConfig, InputFetcher } from '../sources/types.js';
export { systemClock, type Clock, type EngineConfig, type FetchedInput, type InputFetcher } from '../sources/types.js';

export interface EnginePorts {
  clock: Clock;
  config: EngineConfig;
  http: HttpClient;
  fetchInput: InputFetcher;
  /** The embedded store, opened on first use; absent when the caller has none. */
  store?: () => Promise<Store>;
  /**
   * The embedded store only when it already exists (null when there is none yet), for a look-up
   * that finds nothing in an absent store: it neither creates the store nor loads SQLite to learn
   * that. Absent → `store`.
   */
  existingStore?: () => Promise<Store | null>;
  /**
   * True only when the store is known not to exist yet, so nothing can be found in it: work done
   * only for a look-up (the perceptual hash of the known-media index) is then skipped. Absent →
   * not known (the work is done).
   */
  storeAbsent?: () => boolean;
  /** A natural-language-inference model for claim stance (`claim.stance = nli`); absent → local stance model. */
  nli?: NliClassifier;
  /** A private folder for V8 code caches of large modules (pdf.js); absent → compiled from source each time. */
  codeCacheDir?: string;
  /** A PDF extraction thread the host started early, with the same codeCacheDir (document/extraction-thread.ts); used by the first PDF. */
  pdfThread?: EarlyPdfThread;
  /** An image decode the host started early (media/early-media.ts); used by the analysis of those same bytes. */
  earlyMedia?: EarlyMedia;
}

export interface VerifyOptions {
  signal?: AbortSignal;
  /** The caller's plan: gates plan-only sources (opencorporates). Embedded mode: `enterprise`. */
  plan?: Plan;
  /** Remote mode: the Idempotency-Key to send (batch items derive it from their input); the engine itself ignores it. */
  idempotencyKey?: string;
  /**
   * The request is already the output of its schema's parse (src/api/requests.ts): the server
   * validates before any quota question and hands the parsed request over, not to parse twice.
   */
  validated?: boolean;
  /**
   * Embedded callers only, never on the wire: the input file's bytes as the caller read them, in
   * place of their base64 in the request (media `file`; document `content` with source `upload`),
   * so a local file is not encoded, checked and decoded again. The request then leaves that field
   * out. Operations read it through engine/inputs.ts `uploadedBytes` (index.ts encodes it into the
   * request for those that do not yet).
   */
  inputBytes?: Buffer;
  /**
   * Embedded callers only, never on the wire: `inputBytes` as a file to read where the analysis
   * runs (a batch item's file, a spooled upload), so the bytes of a photo are never held by the
   * process that hands the job to the analysis pool's workers (cli/analysis-host.ts). Read once,
   * when the verification starts, then as `inputBytes`; a file that cannot be read is an error.
   */
  inputFile?: string;
}

export interface Engine {
  verifyClaim(req: ClaimRequestInput, opts?: VerifyOptions): Promise<ClaimResult>;
  verifyBusiness(req: BusinessRequestInput, opts?: VerifyOptions): Promise<BusinessResult>;
  verifyMedia(req: MediaRequestInput, opts?: VerifyOptions): Promise<MediaResult>;
  /** `content` may be left out when the file comes as `opts.inputBytes` (source `upload`). */
  verifyDocument(req: Omit<DocumentRequestInput, 'content'> & { content?: string }, opts?: VerifyOptions): Promise<DocumentResult>;
}

/** What an operation module returns; the engine adds `id`, `latency_ms` and `credits_used`. */
export type Computed<R> = Omit<R, 'id' | 'latency_ms' | 'credits_used'>;

export interface Operations {
  claim(req: ClaimRequest, ports: EnginePorts, opts: VerifyOptions): Promise<Computed<ClaimResult>>;
  business(req: BusinessRequest, ports: EnginePorts, opts: VerifyOptions): Promise<Computed<BusinessResult>>;
  media(req: MediaRequest, ports: EnginePorts, opts: VerifyOptions): Promise<Computed<MediaResult>>;
  document(req: DocumentRequest, ports: EnginePorts, opts: VerifyOptions): Promise<Computed<DocumentResult>>;
}
