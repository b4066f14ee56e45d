/** The service's event-stream routes that `listen sessions` and `trigger` call (issue 29; remote only). */
import { VerityError } from '../../api/errors.js';
import type { RemoteEngineOptions } from '../../client/remote-engine.js';
import type { CliRuntime } from '../runtime.js';

/** The service the command talks to: --remote URL, VERITY_BASE_URL or the profile's base_url. */
export async function streamApi(rt: CliRuntime, command: string, instead: string): Promise<RemoteEngineOptions> {
  const connection = await rt.connection();
  if (connection.mode !== 'remote')
    throw new VerityError('VALIDATION_FAILED', `verity ${command} talks to a verity service: give --remote URL (or set a profile's base_url)`, {
      hint: instead,
    });
  const [{ userAgent }, { retryLine }] = await Promise.all([import('../../engine/default-ports.js'), import('../retry-notice.js')]);
  return { baseUrl: connection.baseUrl, apiKey: connection.key?.value, userAgent: userAgent(), onRetry: (n) => rt.out.warn(retryLine(n)) };
}
