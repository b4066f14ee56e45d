/** The CLI's exit codes (DESIGN.md "Exit codes"): the catalogue in errors.ts maps each error code to one. */
export const EXIT = { ok: 0, error: 1, usage: 2, gate: 3, auth: 4, limit: 5, unavailable: 6, interrupted: 130 } as const;
