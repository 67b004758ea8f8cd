/**
 * Gateway tools for the chat panel (`/web`, `/crawl`, `/research`): parse the command, run it,
 * get markdown with sources. Plain functions, no `vscode` import.
 *
 *   const parsed = parseToolCommand(text);            // undefined: not a tool command
 *   if (parsed && !parsed.ok) show(parsed.error);
 *   if (parsed?.ok) {
 *     const outcome = await runToolCommand(services.connection.gateway!, parsed.command, {
 *       signal, onProgress: (p) => showProgress(p.text, p.fraction),
 *     });
 *     // outcome.status: 'done' (outcome.answer.markdown, .sources, .pages for /crawl context)
 *     //                 'cancelled' | 'failed' (outcome.markdown)
 *   }
 */
export {
  isToolCommand,
  MAX_CRAWL_URLS,
  normaliseWebUrl,
  parseToolCommand,
  TOOL_COMMANDS,
  type ParsedToolCommand,
  type ToolCommand,
  type ToolCommandInfo,
  type ToolCommandName,
} from '../../chatCore/slashCommands';
export {
  escapeMarkdown,
  formatCrawl,
  formatResearch,
  formatWebSearch,
  markdownLink,
  type CrawledPage,
  type ToolAnswer,
  type WebSource,
} from './markdown';
export {
  describeToolError,
  researchProgress,
  runToolCommand,
  type ResearchProgress,
  type RunToolOptions,
  type ToolGateway,
  type ToolOutcome,
} from './runner';
