/**
 * What a result records of the file it describes (`file`: SHA-256 and size), so a report made
 * later (`verity report r.json --input FILE`) can refuse a file that is not the one analysed.
 */
import { createHash } from 'node:crypto';

export interface FileDigest {
  sha256: string;
  bytes: number;
}

/** `sha256`: the hex digest when the caller already has it (media verification hashes once for the index look-up and this). */
export const fileDigest = (bytes: Buffer, sha256?: string): FileDigest => ({ sha256: sha256 ?? sha256Hex(bytes), bytes: bytes.length });

export const sha256Hex = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');
