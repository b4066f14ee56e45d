export function standardFontDataSource(): string;
