/**
 * What the sources share with the engine that drives them: the injected clock, the settings of
 * every source (config file sections `sources`, `llm`, `c2pa`, `media`, `document`) and the bounded
 * fetch of `url` inputs. Here, below the engine, so sources never import the engine
 * (docs/architecture.md); engine/types.ts re-exports them.
 */
export interface Clock {
  /** Wall-clock time (timestamps, recency, "dates in the future"). */
  now(): Date;
}
export const systemClock: Clock = { now: () => new Date() };

/** Source credentials and settings (config file section `sources`, `llm`, `c2pa`, `document`). */
export interface EngineConfig {
  /** Contact address for the User-Agent (Wikipedia, GDELT and SEC ask for one). */
  contact?: string;
  sources?: {
    wikipedia?: { base_url?: string };
    google_fact_check?: { api_key?: string; base_url?: string };
    semantic_scholar?: { api_key?: string; base_url?: string };
    gdelt?: { base_url?: string };
    web?: { provider?: 'searxng' | 'brave'; base_url?: string; api_key?: string };
    companies_house?: { api_key?: string; base_url?: string };
    sec_edgar?: { base_url?: string; tickers_url?: string };
    gleif?: { base_url?: string };
    opencorporates?: { api_token?: string; base_url?: string };
  };
  /** An OpenAI-compatible server (`base_url`, `model`) or a local GGUF file (`model_path`). */
  llm?: { base_url?: string; model?: string; api_key?: string; model_path?: string };
  c2pa?: { trust_anchors?: string };
  /** Video frames: `ffmpeg` = path to the ffmpeg binary (ffprobe beside it), or `none`; unset = PATH (docs/media.md). */
  media?: { ffmpeg?: string };
  /** Document signatures: `trust_anchors` = comma-separated PEM bundle paths, PEM text, or `system` (docs/document.md). */
  /** `pdf_reader`: `auto` (default: simple PDFs read without pdf.js, exactly as pdf.js reads them) or `pdfjs` (always pdf.js). */
  document?: { trust_anchors?: string | string[]; pdf_reader?: 'auto' | 'pdfjs' };
}

export interface FetchedInput {
  bytes: Buffer;
  contentType: string | null;
  finalUrl: string;
}
/** Bounded download of a `url` input (http(s) only, size and time limits, SSRF guard in server mode). */
export type InputFetcher = (url: string, opts?: { signal?: AbortSignal }) => Promise<FetchedInput>;

