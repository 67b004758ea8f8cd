// The named breaks `npm run mutation -- --named` applies (scripts/namedBreaks.mjs), one at a time. Each replaces
// one piece of code (`find`, which must appear exactly once in `file`) by a plausible mistake
// (`replace`) and names the unit test files that should fail because of it (`tests`; `grep`
// narrows them to the tests whose title claims that behaviour). A break whose code moved stops
// the run with "appears 0 times": update its `find`.

/** @typedef {{ name: string, description: string, file: string, find: string, replace: string, tests: string[], grep?: string }} Mutant */

/** @type {Mutant[]} */
export const MUTANTS = [
  // ------------------------------------------------------------------ security and durability
  {
    name: 'host-opens-any-link',
    description: 'the chat host opens a link from the webview without checking its scheme',
    file: 'src/features/chat/chatController.ts',
    find: '    if (!isOpenableLink(href)) {',
    replace: '    if (href === undefined) {',
    tests: ['test/unit/security/chatHostActions.test.ts'],
  },
  {
    name: 'write-without-folder-fsync',
    description: "an atomic write is acknowledged before its folder's entry is synced",
    file: 'src/backend/persistence/atomicFile.ts',
    find: '  await fsyncDir(dir);\n}',
    replace: '}',
    tests: ['test/unit/reliability/fsyncOrder.test.ts'],
  },
  {
    name: 'mcp-changes-on-for-any-value',
    description: 'DOCCHAT_MCP_ALLOW_CHANGES=0 or false turns the change tools on',
    file: 'src/mcp/environment.ts',
    find: "allowChanges: env[McpEnv.allowChanges] === '1' || env[McpEnv.allowChanges]?.toLowerCase() === 'true',",
    replace: 'allowChanges: !!env[McpEnv.allowChanges],',
    tests: ['test/unit/reliability/namedBreaks.test.ts'],
  },
  {
    name: 'mcp-search-drops-file-ids-field',
    description: "the MCP server's documents client ignores DOCCHAT_FILE_IDS_FIELD",
    file: 'src/mcp/main.ts',
    find: '    fileIdsField: config.fileIdsField,\n',
    replace: '',
    tests: ['test/unit/mcp/mcpServer.test.ts'],
    grep: 'DOCCHAT_FILE_IDS_FIELD',
  },
  {
    name: 'tool-call-id-erased',
    description: "a later streamed delta without an id erases a tool call's id",
    file: 'src/features/agents/chatModels.ts',
    find: 'call.id ??= delta.id;',
    replace: 'call.id = delta.id;',
    tests: ['test/unit/features/agentModelStream.test.ts'],
  },
  {
    name: 'rewrite-cache-ignores-conversation',
    description: "one conversation's query rewrite is reused in another",
    file: 'src/chatCore/searchQuery.ts',
    find: 'const key = JSON.stringify([model.id, history.map((m) => [m.role, m.content]), question.trim()]);',
    replace: 'const key = JSON.stringify([model.id, question.trim()]);',
    tests: ['test/unit/reliability/namedBreaks.test.ts'],
  },
  {
    name: 'xls-continuation-flag-as-text',
    description: "XLS shared strings read a CONTINUE record's flag byte as text",
    file: 'src/backend/convert/sheets.ts',
    find: '        flags = buf[0]!;\n        at = 1;',
    replace: '        flags = buf[0]!;\n        at = 0;',
    tests: ['test/unit/reliability/namedBreaks.test.ts'],
  },
  {
    name: 'encoding-from-64-bytes',
    description: 'the encoding of a legacy text is detected from its first 64 bytes only',
    file: 'src/backend/convert/encoding.ts',
    find: 'detectEncoding(bytes.subarray(0, 64 * 1024))',
    replace: 'detectEncoding(bytes.subarray(0, 64))',
    tests: ['test/unit/reliability/namedBreaks.test.ts'],
  },
  {
    name: 'new-chat-inherits-stores',
    description: "a new chat starts with the previous chat's stores",
    file: 'src/features/chat/chatSession.ts',
    find: 'const { vectorStoreId: _id, vectorStoreName: _name, vectorStores: _stores, ...previous } = this.current.options;',
    replace: 'const previous = this.current.options;',
    tests: ['test/unit/reliability/namedBreaks.test.ts'],
  },
  {
    name: 'llama-cpp-error-line-ignored',
    description: "llama.cpp's error: line in a 200 stream is ignored (an empty answer)",
    file: 'src/api/gateway/stream.ts',
    find: "error.type !== 'unknown-field' || error.field !== 'error') return;\n        this.failure",
    replace: 'true) return;\n        this.failure',
    tests: ['test/unit/api/gateway/llamaCppError.test.ts'],
    grep: 'read directly',
  },
  // ------------------------------------------------------------------ src/backend
  {
    name: 'raw-content-disposition',
    description: 'Content-Disposition built from the raw file name',
    file: 'src/backend/documents/routes.ts',
    find: "'content-disposition': `attachment; filename*=UTF-8''${encodeURIComponent(file.filename)}`",
    replace: '\'content-disposition\': `attachment; filename="${file.filename}"`',
    tests: ['test/unit/security/hostileFiles.test.ts'],
    grep: 'CR/LF',
  },
  {
    name: 'zip-guard-inflates-everything',
    description: 'the zip guard inflates the whole part and keeps every chunk before comparing with the limit',
    file: 'src/backend/convert/zipGuard.ts',
    find: `      if (size > budget) {
        inflate.destroy();
        finish(size);
      }`,
    replace: '',
    tests: ['test/unit/security/hostileFiles.test.ts'],
    grep: 'stops inflating a bomb',
  },
  {
    name: 'vague-last-error',
    description: 'every failed file gets "<name>: something went wrong." as its last_error',
    file: 'src/backend/documents/ingest.ts',
    find: "record: { ...latest, status: 'failed', last_error: message }",
    replace: "record: { ...latest, status: 'failed', last_error: `${file.filename}: something went wrong.` }",
    tests: ['test/unit/security/hostileFiles.test.ts'],
    grep: 'fails a PDF with',
  },
  {
    name: 'upload-buffers-whole-body',
    description: 'an upload past the limit is read into memory whole before it is refused',
    file: 'src/backend/http/body.ts',
    find: `      if (size > limit) {
        cleanup();
        chunks.length = 0;
        void discardBody(req).then(() => reject(tooLarge(limit)));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve(`,
    replace: `      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      if (size > limit) return reject(tooLarge(limit));
      resolve(`,
    tests: ['test/unit/backend/documents/files.test.ts'],
    grep: 'after draining it',
  },
  {
    name: 'web-tools-never-forwarded',
    description: 'web search and research always answer 501, even with an upstream that has them',
    file: 'src/backend/gateway/routes.ts',
    find: `    if (!upstream) {
      throw notImplemented(`,
    replace: `    if (upstream || !upstream) {
      throw notImplemented(`,
    tests: ['test/unit/backend/gateway/gatewayUpstream.test.ts'],
    grep: 'forwards web search',
  },
  // ------------------------------------------------------------------ src/api
  {
    name: 'configured-ca-replaces-roots',
    description: "a configured CA replaces Node's roots and the system store instead of joining them",
    file: 'src/api/http/certificates.ts',
    find: 'return [...tls.rootCertificates, ...system, ...extra];',
    replace: 'return extra.length ? extra : [...tls.rootCertificates, ...system];',
    tests: ['test/unit/api/http/dispatcher.test.ts'],
    grep: "keeps Node's roots",
  },
  // ------------------------------------------------------------------ src/features (named in the test suite's checks)
  {
    name: 'trim-keeps-only-active',
    description: 'trimming the conversation history drops all but the active conversation',
    file: 'src/features/chat/conversationStore.ts',
    find: '.slice(0, MAX_CONVERSATIONS)',
    replace: '.slice(0, 0)',
    tests: ['test/unit/features/chat/stateAndCatalogs.test.ts'],
    grep: 'keeps at most the newest',
  },
  {
    name: 'rate-limited-retry-stays-disabled',
    description: 'after a rate limit, Retry is never enabled again',
    file: 'media/chat/messageView.ts',
    find: 'retry.disabled = left > 0 || !this.isLast || this.ctx.busy();',
    replace: 'retry.disabled = true;',
    tests: ['test/unit/media/chat/webviewApp.test.ts'],
    grep: 'rate limit holds Retry',
  },
  {
    name: 'markdown-raw-html-on',
    description: 'the webview markdown renderer lets raw HTML of the answer through (to DOMPurify)',
    file: 'media/chat/markdown.ts',
    find: 'new MarkdownIt({ html: false,',
    replace: 'new MarkdownIt({ html: true,',
    tests: ['test/unit/media/chat/webviewApp.test.ts'],
    grep: 'never renders model output',
  },
  {
    name: 'search-drops-file-restriction',
    description: "the quick pick's search request drops file_ids",
    file: 'src/features/search/searchController.ts',
    find: '...(restriction.length ? { file_ids: restriction.map((f) => f.id) } : {})',
    replace: '...{}',
    tests: ['test/unit/features/search/searchController.test.ts'],
    grep: 'restricts to chosen files',
  },
  {
    name: 'poll-sleep-ignores-signal',
    description: 'the wait between polls of waitUntilProcessed ignores the abort signal',
    file: 'src/api/documents/client.ts',
    find: 'await clock.sleep(delay, o.signal);',
    replace: 'await clock.sleep(delay);',
    tests: ['test/unit/api/documents/documents.test.ts'],
    grep: 'aborts during the wait between polls',
  },
  {
    name: 'hash-on-calling-thread',
    description: 'folder sync hashes every file on the calling thread (the extension host), never in the worker',
    file: 'src/features/sync/scanner.ts',
    find: 'const entry = options.worker !== false && toHash.length >= WORKER_MIN_FILES ? await hashWorkerEntry() : undefined;',
    replace: 'const entry = undefined as { file: string; eval?: boolean } | undefined;',
    tests: ['test/unit/features/sync/scanner.test.ts'],
    grep: 'worker',
  },
  {
    name: 'index-never-yields',
    description: 'adding a big file to the search index never lets the event loop turn',
    file: 'src/backend/search/storeIndex.ts',
    find: `      if (performance.now() - sliceStart > INDEX_SLICE_MS) {
        await nextTurn();`,
    replace: `      if (performance.now() - sliceStart > INDEX_SLICE_MS) {`,
    tests: ['test/unit/backend/search/bm25.test.ts'],
    grep: 'adds a big file gradually',
  },
  {
    name: 'journal-without-fsync',
    description: 'journal appends are acknowledged without fdatasync (what a process kill cannot show)',
    file: 'src/backend/persistence/journal.ts',
    find: `        await this.handle.write(lines.join(''));
        await this.handle.datasync();`,
    replace: `        await this.handle.write(lines.join(''));`,
    tests: ['test/unit/reliability/ackAfterSync.test.ts'],
  },
  {
    name: 'atomic-write-without-fsync',
    description: 'an atomic file replacement renames the temporary file without its fsync',
    file: 'src/backend/persistence/atomicFile.ts',
    find: `    await handle.writeFile(data);
    await handle.sync();`,
    replace: `    await handle.writeFile(data);`,
    tests: ['test/unit/reliability/fsyncOrder.test.ts'],
  },
  {
    name: 'bearer-token-not-compared',
    description: 'the documents service accepts any bearer token',
    file: 'src/backend/http/auth.ts',
    find: 'if (!same(bearer, credentials.token)) throw unauthorized(',
    replace: "if (bearer === '') throw unauthorized(",
    tests: ['test/unit/backend/http/auth.test.ts'],
  },
  {
    name: 'error-echoes-token',
    description: 'a rejected bearer token is named in the error message',
    file: 'src/backend/http/auth.ts',
    find: "throw unauthorized('The bearer token is not valid for this documents service.', 'Bearer');",
    replace: "throw unauthorized(`The bearer token ${bearer} is not valid for this documents service.`, 'Bearer');",
    tests: ['test/unit/backend/http/auth.test.ts'],
    grep: 'never echoes',
  },
  {
    name: 'bm25-ignores-length',
    description: 'BM25 scores ignore document length (no length normalisation)',
    file: 'src/backend/search/bm25.ts',
    find: '(tf + K1 * (1 - B + (B * this.lengths[doc]!) / averageLength))',
    replace: '(tf + K1)',
    tests: ['test/unit/backend/search/bm25.test.ts', 'test/unit/backend/documents/search.test.ts'],
  },
  {
    name: 'bm25-no-idf',
    description: 'BM25 weighs every term the same (no inverse document frequency)',
    file: 'src/backend/search/bm25.ts',
    find: 'const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));',
    replace: 'const idf = 1;',
    tests: ['test/unit/backend/search/bm25.test.ts', 'test/unit/backend/documents/search.test.ts'],
  },
  {
    name: 'chunks-without-overlap',
    description: 'chunks no longer repeat the end of the previous chunk',
    file: 'src/backend/chunking/chunker.ts',
    find: 'const overlapChars = Math.min((options.overlapTokens ?? DEFAULT_OVERLAP_TOKENS) * CHARS_PER_TOKEN, Math.floor(maxChars / 3));',
    replace: 'const overlapChars = 0;',
    tests: ['test/unit/backend/chunking/chunking.test.ts'],
  },
  {
    name: 'page-limit-unchecked',
    description: 'list endpoints accept any page size',
    file: 'src/backend/documents/pagination.ts',
    find: 'if (!Number.isInteger(limit) || limit < min || limit > max) {',
    replace: 'if (!Number.isInteger(limit)) {',
    tests: [
      'test/unit/backend/documents/stores.test.ts',
      'test/unit/backend/documents/storeFiles.test.ts',
      'test/unit/backend/documents/files.test.ts',
      'test/unit/security/limits.test.ts',
    ],
  },
  // ------------------------------------------------------------------ src/api
  {
    name: 'no-retry-on-429',
    description: 'the HTTP client does not retry a 429',
    file: 'src/api/http/retry.ts',
    find: 'return status === 408 || status === 409 || status === 429 || (status >= 500 && status !== 501);',
    replace: 'return status === 408 || status === 409 || (status >= 500 && status !== 501);',
    tests: ['test/unit/api/http/retry.test.ts', 'test/unit/api/http/rateLimit.test.ts'],
  },
  {
    name: 'retry-on-501',
    description: 'the HTTP client retries a 501 (which never changes)',
    file: 'src/api/http/retry.ts',
    find: 'return status === 408 || status === 409 || status === 429 || (status >= 500 && status !== 501);',
    replace: 'return status === 408 || status === 409 || status === 429 || status >= 500;',
    tests: ['test/unit/api/http/retry.test.ts'],
  },
  // ------------------------------------------------------------------ src/chatCore
  {
    name: 'citation-out-of-range',
    description: 'a citation number past the last source still counts as a citation',
    file: 'src/chatCore/citations.ts',
    find: 'if (!Number.isInteger(n) || n < 1 || n > sourceCount) {',
    replace: 'if (!Number.isInteger(n) || n < 1) {',
    tests: ['test/unit/chatCore/citations.test.ts'],
  },
  {
    name: 'markdown-link-as-citation',
    description: '[1](https://…) is read as a citation',
    file: 'src/chatCore/citations.ts',
    find: 'if (text.charCodeAt(end) === 0x28 /* ( */ || text.charCodeAt(end) === 0x3a /* : */) {',
    replace: 'if (text.charCodeAt(end) === 0x3a /* : */) {',
    tests: ['test/unit/chatCore/citations.test.ts'],
  },
  {
    name: 'citation-opens-whole-passage',
    description: 'a citation highlights the whole passage, not the sentence the answer quoted',
    file: 'src/features/search/passageLocate.ts',
    find: 'if (!spans.length) return { spans: [passage], focused: passage };',
    replace: 'return { spans: [passage], focused: passage };',
    tests: ['test/unit/features/search/passageLocate.test.ts'],
  },
  {
    name: 'extractive-table-flattened',
    description: 'local-extractive quotes table rows as flattened sentences instead of a table',
    file: 'src/backend/gateway/answerUnits.ts',
    find: 'if (TABLE_LINE.test(line)) {',
    replace: 'if (TABLE_LINE.test(line) && false) {',
    tests: ['test/unit/backend/gateway/extractiveAnswers.test.ts'],
  },
  {
    name: 'extractive-ignores-english-rarity',
    description: "local-extractive weighs a question's words by their rarity among the sources only",
    file: 'src/backend/gateway/answerScoring.ts',
    find: 'return Math.log(1 + (units.length - n + 0.5) / (n + 0.5)) * englishRarity(term);',
    replace: 'return Math.log(1 + (units.length - n + 0.5) / (n + 0.5));',
    tests: ['test/unit/backend/gateway/extractiveAnswers.test.ts'],
    grep: 'everyday words',
  },
  {
    name: 'history-keeps-failed-answers',
    description: 'answers that ended in an error are sent back to the model as history',
    file: 'src/chatCore/promptBuilder.ts',
    find: "} else if (message.content.trim() !== '' && message.status !== 'error') {",
    replace: "} else if (message.content.trim() !== '') {",
    tests: ['test/unit/chatCore/promptBuilder.test.ts'],
  },
  {
    name: 'sources-duplicated',
    description: 'a passage already in the context is numbered a second time',
    file: 'src/chatCore/grounding.ts',
    find: 'if (!items.some((item) => sameItem(item, passage))) {',
    replace: 'if (items.length >= 0) {',
    tests: ['test/unit/chatCore/grounded.test.ts', 'test/unit/chatCore/promptBuilder.test.ts'],
  },
  {
    name: 'title-not-shortened',
    description: 'a long first question becomes the conversation title whole',
    file: 'src/chatCore/promptBuilder.ts',
    find: "return line.length > 60 ? `${line.slice(0, 57)}…` : line || 'New chat';",
    replace: "return line || 'New chat';",
    tests: ['test/unit/chatCore/promptBuilder.test.ts'],
  },
];
