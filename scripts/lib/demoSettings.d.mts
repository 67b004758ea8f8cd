export function demoSettings(existing?: Record<string, unknown>): Record<string, unknown>;
