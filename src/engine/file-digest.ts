/**
 * What a result records of the file it describes (`file`: SHA-256 and size), so a report made
 * later (`verity report r.json --input FILE`) can refuse a file that is not the one analysed.
 */
import { createHash } from 'node:crypto';

export interface FileDigest {
  sha256: string;
  bytes: number;
}

export const fileDigest = (bytes: Buffer): FileDigest => ({ sha256: createHash('sha256').update(bytes).digest('hex'), bytes: bytes.length });
