// The wire contract (SPEC.md): shared by engine, server, client and CLI.
export * from './errors.js';
export * from './ids.js';
export * from './requests.js';
export * from './results.js';
export * from './webhooks.js';
export * from './enums.js';
export * from './plans.js';
