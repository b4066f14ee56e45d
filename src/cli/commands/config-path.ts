import type { CliRuntime } from '../runtime.js';

export default async function configPath(rt: CliRuntime): Promise<void> {
  const p = rt.ctx.paths;
  if (rt.out.machine) return rt.out.json({ config_file: p.configFile, data_dir: p.dataDir, cache_dir: p.cacheDir, store_file: p.storeFile });
  rt.out.print(p.configFile);
}
