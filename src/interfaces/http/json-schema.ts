import { z } from 'zod'
import type { AnyTool } from '../tools/tool.js'

export type JsonSchema = Record<string, unknown>

const cache = new WeakMap<z.ZodType, { input: JsonSchema; output: JsonSchema }>()

function convert(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const { $schema: _ignored, ...json } = z.toJSONSchema(schema, {
    io,
    unrepresentable: 'any',
    target: 'draft-2020-12',
  }) as JsonSchema
  return json
}

/** A tool's argument schema (what a caller may send: defaults make fields optional). */
export function inputJsonSchema(tool: AnyTool): JsonSchema {
  return schemasOf(tool.input).input
}

/** A tool's result schema. */
export function outputJsonSchema(tool: AnyTool): JsonSchema {
  return schemasOf(tool.output).output
}

function schemasOf(schema: z.ZodType) {
  let entry = cache.get(schema)
  if (!entry) {
    entry = { input: convert(schema, 'input'), output: convert(schema, 'output') }
    cache.set(schema, entry)
  }
  return entry
}

/** Any request or answer schema of a REST path (the team-workflow paths: src/interfaces/http/manage-api.ts). */
export function zodJsonSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  return schemasOf(schema)[io]
}

/** MCP wants object results; tools that answer bare arrays (per the spec) are wrapped as `{items}` there. */
export const returnsArray = (tool: AnyTool) => outputJsonSchema(tool).type === 'array'

export const errorBodySchema: JsonSchema = {
  type: 'object',
  required: ['success', 'error'],
  properties: {
    success: { type: 'boolean', const: false },
    error: {
      type: 'object',
      required: ['code', 'message'],
      properties: {
        code: {
          type: 'string',
          enum: [
            'invalid_request',
            'unauthorized',
            'insufficient_credits',
            'forbidden',
            'not_found',
            'conflict',
            'rate_limited',
            'internal',
          ],
        },
        message: { type: 'string' },
        details: {},
      },
    },
  },
}
