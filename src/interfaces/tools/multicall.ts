import { z } from 'zod'
import { invalid, toAppError } from '../../platform/errors.js'
import { defineTool, toolInput } from './tool.js'

export const MAX_CALLS = 20

const callSchema = z.strictObject({
  tool: z.string().min(1).max(64).describe('Tool name, for example create_post.'),
  arguments: z
    .record(z.string(), z.unknown())
    .optional()
    .describe(
      'The tool arguments, as if the tool were called alone. workspaceId defaults to the batch workspaceId.',
    ),
  id: z
    .string()
    .max(200)
    .optional()
    .describe('Label echoed on this call result. Default: the call position, from "1".'),
})

const errorSchema = z.object({
  code: z.string().describe('Error code, as in the REST error body.'),
  message: z.string().describe('What went wrong.'),
})

const resultSchema = z.object({
  id: z.string().describe('The call label.'),
  tool: z.string().describe('The tool that was called.'),
  ok: z.boolean().describe('True when the call succeeded.'),
  result: z.unknown().optional().describe('The tool result, on success.'),
  error: errorSchema.optional().describe('The failure, when the call ran and failed.'),
  skipped: z.boolean().optional().describe('True when the call was not run because an earlier call failed.'),
})

export const multicall = defineTool({
  name: 'multicall',
  title: 'Run several tools',
  description:
    'Run 1 to 20 tools in one request, in order, so a later call can use what an earlier one produced. Every tool name is checked before anything runs; batches cannot nest. With stopOnError (default true) the first failure skips the rest.',
  access: 'write',
  category: 'Batching',
  input: toolInput({
    calls: z.array(callSchema).min(1).max(MAX_CALLS).describe('The calls, 1 to 20, run sequentially.'),
    stopOnError: z
      .boolean()
      .default(true)
      .describe('Default true: stop at the first failing call and skip the rest.'),
  }),
  output: z.object({
    ok: z.boolean().describe('True when every call ran and succeeded.'),
    requested: z.number().int().describe('Number of calls in the batch.'),
    executed: z.number().int().describe('Calls that ran.'),
    succeeded: z.number().int().describe('Calls that ran and succeeded.'),
    failed: z.number().int().describe('Calls that ran and failed.'),
    results: z.array(resultSchema).describe('One entry per call, in order.'),
  }),
  async handler(input, ctx) {
    if (ctx.nested) throw invalid('multicall cannot be called inside a multicall')
    const unknown = input.calls.filter((call) => !ctx.app.toolNames.has(call.tool)).map((call) => call.tool)
    if (unknown.length > 0)
      throw invalid(`Unknown tool${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')}`, {
        unknownTools: unknown,
      })
    if (input.calls.some((call) => call.tool === 'multicall'))
      throw invalid('Batches cannot nest: multicall cannot be one of the calls')

    const results: z.infer<typeof resultSchema>[] = []
    let executed = 0
    let succeeded = 0
    let stopped = false
    for (const [index, call] of input.calls.entries()) {
      const id = call.id ?? String(index + 1)
      if (stopped) {
        results.push({ id, tool: call.tool, ok: false, skipped: true })
        continue
      }
      const args = { ...call.arguments, workspaceId: call.arguments?.workspaceId ?? input.workspaceId }
      executed += 1
      try {
        const result = await ctx.runTool(call.tool, args)
        succeeded += 1
        results.push({ id, tool: call.tool, ok: true, result })
      } catch (error) {
        const appError = toAppError(error)
        results.push({
          id,
          tool: call.tool,
          ok: false,
          error: { code: appError.code, message: appError.message },
        })
        if (input.stopOnError) stopped = true
      }
    }
    const failed = executed - succeeded
    return {
      ok: failed === 0 && executed === input.calls.length,
      requested: input.calls.length,
      executed,
      succeeded,
      failed,
      results,
    }
  },
})
