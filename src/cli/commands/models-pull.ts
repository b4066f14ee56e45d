import { existsSync } from 'node:fs';
import type { Command } from 'commander';
import { VerityError } from '../../api/errors.js';
import type { CliRuntime } from '../runtime.js';

interface PullFlags {
  model: string;
  onnxFile: string;
  from?: string;
  force?: boolean;
}

export default async function modelsPull(rt: CliRuntime, cmd: Command): Promise<void> {
  const flags = cmd.opts<PullFlags>();
  const [{ DEFAULT_NLI_MODEL, isModelId, nliManifest, nliModelDir, nliModelsRoot }, { checkModelFolder, readRecord }, { pullModel, removeStalePulls }, { userAgent }] =
    await Promise.all([
      import('../../engine/claim/nli/manifest.js'),
      import('../../engine/claim/nli/model-folder.js'),
      import('../../engine/claim/nli/model-download.js'),
      import('../../engine/default-ports.js'),
    ]);
  if (!isModelId(flags.model))
    throw new VerityError('VALIDATION_FAILED', `--model must be a model id like owner/name, got "${flags.model}"`, {
      details: [{ field: 'model', issue: 'expected owner/name' }],
    });
  if (!/^[A-Za-z0-9._/-]+\.onnx$/.test(flags.onnxFile) || flags.onnxFile.split('/').includes('..'))
    throw new VerityError('VALIDATION_FAILED', `--onnx-file must be a relative .onnx path in the repository, got "${flags.onnxFile}"`, {
      details: [{ field: 'onnx-file', issue: 'expected a path like onnx/model.onnx' }],
    });
  if (flags.from !== undefined && !/^https?:\/\//i.test(flags.from) && !existsSync(flags.from))
    // A missing file or folder argument is a usage error (exit 2), as in every other command.
    throw new VerityError('VALIDATION_FAILED', `--from ${flags.from} is neither an http(s) URL nor an existing folder`, {
      details: [{ field: 'from', issue: 'file not found or not readable' }],
    });
  const dir = nliModelDir(rt.ctx.paths.dataDir, flags.model);
  removeStalePulls(nliModelsRoot(rt.ctx.paths.dataDir));

  if (!flags.force && readRecord(dir)) {
    const check = await checkModelFolder(dir);
    if (check.verified) {
      const result = { id: flags.model, path: dir, size: check.size, verified: true, pulled: false };
      if (rt.out.machine) return rt.out.json(result);
      rt.out.success(`${flags.model} is already in ${dir} and matches its digests (--force downloads it again)`);
      return;
    }
    rt.out.warn(`${flags.model} in ${dir} does not check out (${check.problems.join('; ')}); downloading it again`);
  }

  const bar = rt.out.progress(`Downloading ${flags.model}`);
  let current = '';
  const record = await pullModel({
    manifest: nliManifest(flags.model, flags.onnxFile),
    dir,
    ...(flags.from !== undefined ? { from: flags.from } : {}),
    userAgent: userAgent(rt.config().contact),
    signal: rt.ctx.interrupted,
    now: () => rt.ctx.clock.now(),
    // The files must also load and answer, or they do not replace what is there.
    check: async (staging) => {
      const { createOnnxNliClassifier } = await import('../../engine/claim/nli/classifier.js');
      const nli = createOnnxNliClassifier({ dir: staging, id: flags.model, pullHint: 'verity models pull nli' });
      try {
        await nli.classify([{ premise: 'A man is playing a guitar on stage.', hypothesis: 'A person is making music.' }]);
      } catch (err) {
        if (err instanceof VerityError) throw new VerityError(err.code, `The downloaded model does not load: ${err.message.replace(staging, dir)}`);
        throw err;
      } finally {
        await nli.close();
      }
    },
    onProgress: (p) => {
      if (p.file !== current) current = p.file;
      bar.update(p.done, p.total, `${p.file} ${mb(p.done)}${p.total ? ` / ${mb(p.total)}` : ''}`);
    },
  }).finally(() => bar.done());

  const size = Object.values(record.files).reduce((a, f) => a + f.size, 0);
  const result = { id: record.id, path: dir, size, verified: true, loads: true, pulled: true, integrity: record.integrity, files: record.files };
  if (rt.out.machine) return rt.out.json(result);
  rt.out.success(`${record.id}: ${Object.keys(record.files).length} files, ${mb(size)} in ${dir}; it loads and answers`);
  if (record.integrity !== 'pinned')
    rt.out.info(
      rt.out.errStyle.dim(
        record.integrity === 'local'
          ? 'Copied from a folder: its digests are recorded now and checked from here on.'
          : 'verity has no pinned digests for this model: the digests of this download are recorded now and checked from here on.',
      ),
    );
  const claim = rt.config().claim;
  const steps: string[] = [];
  if (record.id !== (claim?.nli_model ?? DEFAULT_NLI_MODEL)) steps.push(`verity config set claim.nli_model ${record.id}`);
  if (claim?.stance !== 'nli') steps.push('verity config set claim.stance nli');
  if (steps.length) rt.out.info(`Use it for claims with: ${steps.join(' && ')}`);
}

const mb = (n: number): string => `${(n / 1024 / 1024).toFixed(1)} MB`;
