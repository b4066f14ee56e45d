/** Document report: signatures and the revision timeline, metadata consistency, AI-text passages. */
import { AiTextSummary, type DocumentResult, type RevisionEntry, type SignatureSummary } from '../api/results.js';
import { notMeasured } from '../api/not-measured.js';
import { isoTime } from '../output/trust-words.js';
import { AUTHORITY_NOTE, badge, bar, dimensionsSection, notMeasuredRow, evidenceTable, headline, warningsSection, type Tone } from './common.js';
import { fmt, html, type Html } from './html.js';


const sigName = (s: SignatureSummary | undefined, i: number): string => (s?.field ? `“${s.field}”` : `signature ${i + 1}`);
const INTEGRITY_TONE: Record<SignatureSummary['integrity'], Tone> = { valid: 'good', broken: 'bad', unknown: 'warn' };
const TRUST_TONE: Record<SignatureSummary['trust'], Tone> = { trusted: 'good', untrusted: 'warn', expired: 'warn', revoked: 'bad', unknown: 'neutral' };
const LEVEL: Record<NonNullable<RevisionEntry['level']>, string> = {
  none: 'no change to the document',
  lta_updates: 'validation data / time-stamps only',
  form_filling: 'form filling and signing',
  annotations: 'annotations',
};

function signaturesTable(sigs: SignatureSummary[]): Html {
  return html`<table><thead><tr><th scope="col">Signature</th><th scope="col">Signer</th><th scope="col">Signed at</th><th scope="col">Integrity</th><th scope="col">Trust</th><th scope="col">Covers</th></tr></thead><tbody>${sigs.map(
    (s, i) => html`<tr><td>${sigName(s, i)}<div class="small muted">${s.kind === 'document_timestamp' ? 'document time-stamp' : 'signature'}${s.algorithm ? ` · ${s.algorithm}` : ''}</div></td><td>${s.signer ?? 'unknown'}</td><td>${s.signed_at ?? '—'}${s.timestamp ? html`<div class="small">time-stamped ${s.timestamp.time ?? '?'} (${s.timestamp.trust})</div>` : ''}</td><td>${badge(s.integrity, INTEGRITY_TONE[s.integrity])}${s.problems.length ? html`<ul class="small">${s.problems.map((p) => html`<li>${p}</li>`)}</ul>` : ''}</td><td>${badge(s.trust, TRUST_TONE[s.trust])}${s.notes.length ? html`<details><summary class="small">notes</summary><ul class="small">${s.notes.map((n) => html`<li>${n}</li>`)}</ul></details>` : ''}</td><td>${s.covers_whole_document ? 'the whole file' : s.revision !== undefined && s.revision !== null ? html`revision ${s.revision}${s.signed_bytes !== undefined ? html` (bytes 0–${s.signed_bytes})` : ''}` : s.signed_bytes !== undefined ? `bytes 0–${s.signed_bytes}` : 'part of the file'}</td></tr>`,
  )}</tbody></table>`;
}

function revisionTimeline(revs: RevisionEntry[], sigs: SignatureSummary[]): Html {
  const items = revs.map((r) => {
    const tone = r.breaks.length ? 'bad' : r.signatures.length ? 'good' : '';
    return html`<li class="${tone}"><strong>Revision ${r.index}</strong> <span class="muted small">bytes ${r.start}–${r.end}</span>
<div>${r.index === 0 ? 'The original document.' : html`Changes: ${r.changes}`}</div>
${r.changed.length && r.index > 0 ? html`<details><summary class="small">objects changed (${r.changed.length}${r.changed.length >= 10 ? '+' : ''})</summary><ul class="small">${r.changed.map((c) => html`<li>${c}</li>`)}</ul></details>` : ''}
${r.signatures.map((i) => html`<div>${badge('signed', 'good')} ${sigName(sigs[i], i)} by ${sigs[i]?.signer ?? 'unknown'} (${sigs[i]?.trust ?? 'unknown'} signer) covers everything up to here.</div>`)}
${r.level && !r.breaks.length && r.index > 0 && !r.signatures.length ? html`<div class="small">Permitted after signing: ${LEVEL[r.level]}.</div>` : ''}
${r.breaks.length ? html`<div>${badge('breaks', 'bad')} This revision breaks ${r.breaks.map((i, k) => html`${k ? ', ' : ''}<strong>${sigName(sigs[i], i)}</strong> (${sigs[i]?.trust ?? 'unknown'} signer)`)}: it changes what was signed in a way a signed PDF may not receive.</div><ul class="small">${r.reasons.map((x) => html`<li>${x}</li>`)}</ul>` : ''}
</li>`;
  });
  // Signatures × revisions: where each was made and what each later revision did to it.
  const signedAt = (i: number): number => revs.find((r) => r.signatures.includes(i))?.index ?? -1;
  const matrix = sigs.length
    ? html`<table class="matrix"><caption class="small" style="text-align:left">Which revision broke which signature</caption><thead><tr><th scope="col">Signature</th>${revs.map((r) => html`<th scope="col">Rev. ${r.index}</th>`)}</tr></thead><tbody>${sigs.map((s, i) => {
        const at = signedAt(i);
        return html`<tr><th scope="row">${sigName(s, i)} <span class="small muted">(${s.trust})</span></th>${revs.map((r) =>
          r.index === at ? html`<td>${badge('signed', 'good')}</td>`
            : at < 0 || r.index < at ? html`<td class="muted">—</td>`
            : r.breaks.includes(i) ? html`<td>${badge('broken', 'bad')}</td>`
            : html`<td>${badge('allowed', 'good')}</td>`,
        )}</tr>`;
      })}</tbody></table>`
    : '';
  return html`${matrix}<ol class="timeline">${items}</ol>`;
}

function aiSection(r: DocumentResult): Html {
  // Read defensively: a saved result from an older or other build may lack the field or bend it.
  const parsed = AiTextSummary.safeParse(r.ai_text);
  const ai = parsed.success ? parsed.data : null;
  const p = ai?.probability ?? r.ai_generated_probability;
  // A result with the detector's field was measured, whatever an older warning says.
  const why = ai ? undefined : notMeasured(r.warnings).get('ai_generated_probability');
  if (why)
    return html`<section aria-labelledby="h-ai"><h2 id="h-ai">AI-generated text</h2>
<div class="dims">${notMeasuredRow('AI-text probability', 'a statistical indication, not proof', why)}</div></section>`;
  return html`<section aria-labelledby="h-ai"><h2 id="h-ai">AI-generated text</h2>
<div class="dims"><div><strong>AI-text probability</strong><div class="small muted">a statistical indication, not proof</div></div>${bar(p, 'AI-text probability', p >= 0.5 ? 'bad' : p >= 0.3 ? 'warn' : 'good')}<div class="num">${fmt(p)}</div><div class="small">${ai ? html`${ai.words} words read · ${ai.flagged ? html`<strong>flagged</strong>` : 'not flagged'}` : r.dimension_producers?.llm_analysis ? html`content analysis by <strong>${r.dimension_producers.llm_analysis}</strong>` : ''}</div></div>
${ai?.passages.length ? html`<h3>Passages that drove it</h3>${ai.passages.map((x) => html`<blockquote><div class="small muted">characters ${x.start}–${x.end} · passage probability ${fmt(x.probability)}</div><mark class="ai">${x.excerpt}</mark>${x.cues.length ? html`<div class="small">Cues: ${x.cues.join('; ')}</div>` : ''}</blockquote>`)}` : html`<p class="muted small">${ai ? 'No passage stood out.' : 'No passage-level detail in this result.'}</p>`}
</section>`;
}

const META_SOURCES = /metadata|xmp|dates?|core|docx_props|timestamps?/i;

export function documentBody(r: DocumentResult, subject: string): Html[] {
  const flags = r.manipulation_flags;
  const tone: Tone = flags.includes('signature_forgery') ? 'bad' : flags.length ? 'warn' : r.trust_score >= 0.6 ? 'good' : 'warn';
  const verdict = flags.length ? flags.join(', ') : 'no manipulation flags';
  const meta = r.evidence.filter((e) => META_SOURCES.test(e.source));
  const sigs = r.signatures ?? [];
  return [
    headline({ title: 'document', subject, verdict, tone, trust: r.trust_score, meaning: flags.length ? 'Flags name what was found; the evidence below says where and why.' : 'No signature, metadata or content problem was found; this is not proof of authenticity.' }),
    warningsSection(r.warnings),
    dimensionsSection(r.dimensions, r.dimension_producers, r.warnings),
    html`<section aria-labelledby="h-sig"><h2 id="h-sig">Signatures and revisions</h2>
${sigs.length ? signaturesTable(sigs) : html`<p>The document carries no digital signature.</p>`}
${r.revisions?.length ? html`<h3>Revision timeline</h3><p class="small muted">A PDF grows by appended revisions. A signature covers the bytes up to the end of its revision; each later revision is compared with what was signed.</p>${revisionTimeline(r.revisions, sigs)}` : html`<p class="muted">No revision history: a PDF without incremental updates, or another format.</p>`}
</section>`,
    html`<section aria-labelledby="h-meta"><h2 id="h-meta">Metadata consistency</h2>
<table><tbody>
<tr><th scope="row">Author</th><td>${r.metadata.author ?? 'not stated'}</td></tr>
<tr><th scope="row">Created</th><td>${r.metadata.created_at ? isoTime(r.metadata.created_at) : 'not stated'}</td></tr>
<tr><th scope="row">Producer</th><td>${r.metadata.producer}</td></tr>
<tr><th scope="row">Pages</th><td>${r.metadata.page_count}</td></tr>
</tbody></table>
${meta.length ? html`<ul>${meta.map((e) => html`<li>${e.summary ? badge('check', 'warn') : badge('consistent', 'good')} ${e.summary ?? e.finding}${e.summary ? html`<div class="small muted">${e.finding}</div>` : ''}</li>`)}</ul>` : html`<p class="muted">No metadata findings.</p>`}
</section>`,
    aiSection(r),
    html`<section aria-labelledby="h-ev"><h2 id="h-ev">Evidence chain</h2>${AUTHORITY_NOTE}${evidenceTable(
      r.evidence.map((e) => ({ source: e.source, text: e.summary ?? e.finding, detail: e.finding, authority: e.authority_score })),
      'Evidence chain',
    )}</section>`,
  ];
}
