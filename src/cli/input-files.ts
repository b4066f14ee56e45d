/** File arguments: one rule for every command (a missing file is a usage error, exit 2). */
import { readFile, stat } from 'node:fs/promises';
import { VerityError } from '../api/errors.js';
import { LIMITS } from '../api/limits.js';

/**
 * Checks a file argument exists; a missing file is a usage error (exit 2) in every command, not
 * a crash. `field` is the argument or flag as the user typed it. Returns the size in bytes.
 */
export async function requireFile(path: string, field: string): Promise<number> {
  try {
    const st = await stat(path);
    // Regular files only: a read from a silent pipe blocks a thread-pool thread, and a process
    // cannot exit (even on Ctrl-C) while one is blocked.
    if (!st.isFile()) throw new Error('not a file');
    return st.size;
  } catch {
    throw new VerityError('VALIDATION_FAILED', `No such file: ${path}`, { details: [{ field, issue: 'file not found or not readable' }] });
  }
}

/** Reads a file argument (see requireFile). */
export async function readInputFile(path: string, field: string): Promise<Buffer> {
  const size = await requireFile(path, field);
  if (size === 0) throw new VerityError('UNPROCESSABLE_CONTENT', `${path} is empty (0 bytes): there is nothing to analyse`);
  if (size > LIMITS.fileBytes)
    throw new VerityError('PAYLOAD_TOO_LARGE', `${path} is ${(size / 1048576).toFixed(1)} MB; the limit is ${LIMITS.fileBytes / 1048576} MB`);
  return readFile(path);
}

