/** Where the module is written. */
export const TARGET: string;
/** The text of src/backend/gateway/englishWordCounts.ts, from the installed word list. */
export function englishWordCountsModule(): Promise<string>;
