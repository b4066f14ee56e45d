/** Where verity keeps its config and data (DESIGN.md): VERITY_HOME overrides both XDG folders. */
import { homedir } from 'node:os';
import { join } from 'node:path';

export interface VerityPaths {
  configDir: string;
  configFile: string;
  dataDir: string;
  /** The embedded store (keys registry for webhooks, corpora, company data, media index). */
  storeFile: string;
  cacheDir: string;
}

export function resolvePaths(env: NodeJS.ProcessEnv): VerityPaths {
  const home = env.VERITY_HOME;
  const configDir = home ? home : join(env.XDG_CONFIG_HOME || join(homedir(), '.config'), 'verity');
  const dataDir = home ? join(home, 'data') : join(env.XDG_DATA_HOME || join(homedir(), '.local', 'share'), 'verity');
  const cacheDir = home ? join(home, 'cache') : join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'verity');
  return {
    configDir,
    configFile: join(configDir, 'config.json'),
    dataDir,
    storeFile: join(dataDir, 'verity.db'),
    cacheDir,
  };
}
