/** What dist/simple-pdf.cjs exports (simple-bundle.ts): the simple-PDF reader and the structure reader. */
export { readLikePdfJs } from './simple-reading.js';
export { readPdfStructure } from './structure.js';
