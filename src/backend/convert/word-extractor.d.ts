/** The part of word-extractor's API DocChat uses (the package ships no types). */
declare module 'word-extractor' {
  interface TextOptions {
    /** false keeps typographic quotes and dashes as they are written (default: replaced by ASCII). */
    filterUnicode?: boolean;
  }
  export interface WordDocument {
    getBody(options?: TextOptions): string;
    getFootnotes(options?: TextOptions): string;
    getEndnotes(options?: TextOptions): string;
    getHeaders(options?: TextOptions & { includeFooters?: boolean }): string;
    getFooters(options?: TextOptions): string;
    getAnnotations(options?: TextOptions): string;
    getTextboxes(options?: TextOptions & { includeHeadersAndFooters?: boolean; includeBody?: boolean }): string;
  }
  export default class WordExtractor {
    extract(source: string | Buffer): Promise<WordDocument>;
  }
}
