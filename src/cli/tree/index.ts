/**
 * The command tree, one file per area. Each registers its commands (names, flags, help) eagerly —
 * help and completions need them — and imports the command's code only when it runs.
 * Add an area with ONE line here.
 */
import type { Command } from 'commander';
import type { CliContext } from '../context.js';
import { registerData } from './data.js';
import { registerMedia } from './media.js';
import { registerVerify } from './verify.js';
import { registerKeys } from './keys.js';
import { registerConfig } from './config.js';
import { registerCompletion } from './completion.js';
import { registerServe } from './serve.js';
import { registerAdmin } from './admin.js';
import { registerWebhooks } from './webhooks.js';
import { registerListen } from './listen.js';
import { registerModels } from './models.js';
import { registerReport } from './report.js';
import { registerBatches } from './batches.js';

export const areas: Array<(program: Command, ctx: CliContext) => void> = [
  registerVerify,
  registerData,
  registerMedia,
  registerKeys,
  registerConfig,
  registerCompletion,
  registerServe,
  registerAdmin,
  registerWebhooks,
  registerListen,
  registerModels,
  registerReport,
  registerBatches,
];
