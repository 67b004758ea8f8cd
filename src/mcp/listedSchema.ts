/**
 * Tool schemas as DocChat's MCP server lists them: the JSON Schema the SDK derives from the zod
 * schema, without the `$schema` keyword it adds (naming JSON Schema 2020-12). A schema without
 * `$schema` is read in the MCP specification's default dialect, 2020-12, so nothing changes for a
 * host that follows it; but VS Code 1.104 checks each tool's input schema with its JSON language
 * service, which fetches the meta-schema a `$schema` names: offline, or behind a proxy that
 * blocks json-schema.org, that fails and VS Code leaves the tool out. The arguments are still
 * validated by zod. No `vscode` import.
 */
import type { z } from 'zod';

type JsonSchemaConverter = (options: { target: string }) => Record<string, unknown>;

interface StandardWithJsonSchema {
  readonly jsonSchema?: { readonly input: JsonSchemaConverter; readonly output: JsonSchemaConverter };
}

function withoutDialect(convert: JsonSchemaConverter): JsonSchemaConverter {
  return (options) => {
    const { $schema: _dialect, ...schema } = convert(options);
    return schema;
  };
}

/** `schema` for `registerTool`: parses as `schema` does; its JSON Schema names no dialect. */
export function listedSchema<T extends z.ZodType>(schema: T): T {
  const standard = schema['~standard'] as (typeof schema)['~standard'] & StandardWithJsonSchema;
  if (!standard.jsonSchema) throw new Error('The zod schema offers no JSON Schema conversion (zod 4.2 or later is needed).');
  const listed = Object.create(schema) as T;
  Object.defineProperty(listed, '~standard', {
    value: {
      ...standard,
      jsonSchema: { input: withoutDialect(standard.jsonSchema.input), output: withoutDialect(standard.jsonSchema.output) },
    },
  });
  return listed;
}
