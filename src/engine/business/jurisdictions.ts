/**
 * Jurisdiction codes as SPEC 4.2: lowercase ISO 3166-2 style, `gb`, `us_de`. Each registry writes
 * them its own way; these functions translate and compare.
 */

const US_STATES = new Set(
  'al ak az ar ca co ct de dc fl ga hi id il in ia ks ky la me md ma mi mn ms mo mt ne nv nh nj nm ny nc nd oh ok or pa ri sc sd tn tx ut vt va wa wv wi wy pr gu vi as mp'.split(' '),
);

/** GLEIF "GB" / "US-DE" (ISO 3166-1/-2) → "gb" / "us_de". */
export function fromIso(code: string | null | undefined): string | null {
  if (!code) return null;
  const c = code.trim().toLowerCase().replace('-', '_');
  return /^[a-z]{2}(_[a-z0-9]{1,3})?$/.test(c) ? c : null;
}

/** SEC EDGAR `stateOfIncorporation` ("DE") → "us_de"; EDGAR's non-US codes (e.g. "E9") → null. */
export function fromSecState(state: string | null | undefined): string | null {
  const s = (state ?? '').trim().toLowerCase();
  return US_STATES.has(s) ? `us_${s}` : null;
}

/** OpenCorporates already uses SPEC-style codes ("gb", "us_de"). */
export const fromOpenCorporates = (code: string | null | undefined): string | null => fromIso(code);

export const country = (j: string): string => j.split('_')[0]!;

/** Equal, or one is the country of the other ("gb" vs "gb_sct"); unknown is compatible. */
export function compatible(a: string | null | undefined, b: string | null | undefined): boolean {
  if (!a || !b) return true;
  if (a === b) return true;
  return (!a.includes('_') || !b.includes('_')) && country(a) === country(b);
}

/** Which registries can hold a company of this jurisdiction (undefined: any). */
export function sourceApplies(source: 'companies_house' | 'sec_edgar' | 'gleif' | 'opencorporates', j: string | undefined): boolean {
  if (!j) return true;
  if (source === 'companies_house') return country(j) === 'gb';
  if (source === 'sec_edgar') return country(j) === 'us';
  return true;
}
