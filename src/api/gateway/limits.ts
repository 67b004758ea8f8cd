/**
 * The gateway's request limits that code without zod needs too (the chat webview's slash-command
 * parser shares them through src/chatCore). No imports: keeping this file free of zod keeps zod
 * out of the webview bundle.
 */

/** URLs per crawl request. */
export const MAX_CRAWL_URLS = 10;
