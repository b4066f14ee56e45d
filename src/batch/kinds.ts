/** Names the command tree needs at start-up, kept apart so that registering the command loads nothing else. */
export const ITEM_TYPES = ['claim', 'business', 'media', 'document'] as const;
export type ItemType = (typeof ITEM_TYPES)[number];

export const INPUT_FORMATS = ['jsonl', 'csv'] as const;
export type InputFormat = (typeof INPUT_FORMATS)[number];
