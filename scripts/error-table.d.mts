export function errorTable(catalogue: Record<string, { status: number; exit: number; meaning: string }>): string;
