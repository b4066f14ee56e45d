/** A generated webhook secret: `whsec_` + 40 base62 characters (≈ 238 bits), shown once. */
import { randomBase62 } from '../api/ids.js';

export function generateSecretValue(): string {
  return `whsec_${randomBase62(40)}`;
}
