/**
 * Safe HTML building for the report. Everything in a result is untrusted text (evidence titles,
 * snippets and URLs come from the web; metadata comes from the file), so the `html` template
 * escapes every interpolated value unless it is already markup made by this module (`Html`).
 */
export class Html {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text for element content and quoted attribute values. */
export const esc = (s: unknown): string => String(s ?? '').replace(/[&<>"']/g, (c) => ESCAPES[c]!);

type Part = Html | string | number | boolean | null | undefined | readonly Part[];

function render(v: Part): string {
  if (v === null || v === undefined || v === false) return '';
  if (v instanceof Html) return v.value;
  if (Array.isArray(v)) return v.map(render).join('');
  return esc(v);
}

/** Tagged template: `html\`<td>${text}</td>\`` escapes `text`; nested `html` and arrays of it stay markup. */
export function html(strings: TemplateStringsArray, ...values: Part[]): Html {
  let out = strings[0]!;
  for (let i = 0; i < values.length; i++) out += render(values[i]!) + strings[i + 1]!;
  return new Html(out);
}

/** Markup this module made itself (CSS, data: URIs it encoded). Never pass input text here. */
export const trusted = (s: string): Html => new Html(s);

/**
 * A link only for http(s) URLs; anything else (javascript:, data:, file:, relative) is shown as
 * text. Links never load anything by themselves: the report makes no request until one is clicked.
 */
export function link(url: string | null | undefined, text?: string): Html {
  if (!url) return html`${text ?? ''}`;
  let ok = false;
  try {
    const u = new URL(url);
    ok = u.protocol === 'https:' || u.protocol === 'http:';
  } catch {
    ok = false;
  }
  return ok ? html`<a href="${url}" rel="noopener noreferrer nofollow">${text ?? url}</a>` : html`<span class="mono">${text ?? url}</span>`;
}

/** A number in 0..1 with two decimals ("0.83"). */
export const fmt = (x: number | null | undefined): string => (typeof x === 'number' && Number.isFinite(x) ? x.toFixed(2) : '—');

/** An id for the DOM from arbitrary text (only [a-z0-9-]). */
export const slug = (s: string): string => s.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '') || 'x';
