// Types for scripts/ai-text-registers.mjs (used by its unit test).
export interface RegisterText { text: string; y: 0; domain: string; generator: 'human' }
export function isProse(p: string): boolean;
export function passages(paragraphs: string[]): string[];
export function textParagraphs(t: string): string[];
export function rstParagraphs(t: string): string[];
export function handbookParagraphs(html: string): string[];
export function loadRegisters(sources: Record<string, unknown>[]): { texts: RegisterText[]; missing: string[] };
