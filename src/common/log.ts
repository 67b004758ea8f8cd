/** The log every layer writes to; the output channel behind it lives in services/outputLog.ts. */
export type LogLevel = 'trace' | 'debug' | 'info' | 'warn' | 'error';

/** A component-tagged view of the "DocChat" output channel. */
export interface Logger {
  trace(message: string): void;
  debug(message: string): void;
  info(message: string): void;
  warn(message: string): void;
  error(message: string | Error): void;
  /** The same channel, tagged with another component name. */
  child(component: string): Logger;
  /** Adapter for the plain-TypeScript layers (src/api, src/backend) that take a log callback. */
  sink(): (level: LogLevel, message: string) => void;
}
