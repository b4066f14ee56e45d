/**
 * The thumbnails a C2PA manifest carries (the claim's own and each ingredient's), read from the
 * input file for the report's timeline. They are not part of the result (binary, often tens of
 * KB each), so only a report made with the file shows them. Re-encoded through sharp to a small
 * JPEG: whatever format the manifest stored, the report embeds a decoded, bounded image.
 */
import { c2paReadableTypes, loadC2pa } from '../engine/media/c2pa.js';
import { detectMediaType } from '../engine/media/detect-type.js';

export interface C2paThumbnails {
  manifest: string | null;
  /** In the order of the result's `watermark.ingredients` (the active manifest's ingredient list). */
  ingredients: (string | null)[];
}

interface RawRef {
  identifier?: unknown;
}

async function toDataUri(bytes: Uint8Array): Promise<string | null> {
  try {
    const sharp = (await import('sharp')).default;
    const jpeg = await sharp(Buffer.from(bytes), { failOn: 'none', limitInputPixels: 50_000_000 }).resize(200, 200, { fit: 'inside', withoutEnlargement: true }).flatten({ background: '#ffffff' }).jpeg({ quality: 80 }).toBuffer();
    return `data:image/jpeg;base64,${jpeg.toString('base64')}`;
  } catch {
    return null;
  }
}

export async function c2paThumbnails(bytes: Buffer): Promise<C2paThumbnails | null> {
  try {
    const type = await detectMediaType(bytes);
    if (!c2paReadableTypes().includes(type.mime)) return null;
    const mod = await loadC2pa();
    // No network and no trust decisions: only the stored resources are read here.
    const context = JSON.stringify({ verify: { remote_manifest_fetch: false, verify_trust: false, ocsp_fetch: false } });
    const reader = await mod.WasmReader.fromBytes(type.mime, new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength), context);
    try {
      const store = JSON.parse(reader.json()) as { active_manifest?: unknown; manifests?: Record<string, { thumbnail?: RawRef; ingredients?: { thumbnail?: RawRef }[] }> };
      const label = typeof store.active_manifest === 'string' ? store.active_manifest : undefined;
      const m = label ? store.manifests?.[label] : undefined;
      if (!m) return null;
      const read = async (ref: RawRef | undefined): Promise<string | null> => {
        if (typeof ref?.identifier !== 'string') return null;
        try {
          return await toDataUri(reader.resourceToBytes(ref.identifier));
        } catch {
          return null;
        }
      };
      const manifest = await read(m.thumbnail);
      const ingredients: (string | null)[] = [];
      for (const ing of m.ingredients ?? []) ingredients.push(await read(ing.thumbnail));
      return { manifest, ingredients };
    } finally {
      reader.free();
    }
  } catch {
    return null;
  }
}
