import { describe, expect, expectTypeOf, it } from 'vitest'
import { type ToolArgs, type ToolResult, tools, toolsByName } from '../../src/interfaces/tools/registry.js'

describe('the tools by name', () => {
  it('name every registered tool under its own name, and nothing else', () => {
    expect(Object.keys(toolsByName).sort()).toEqual(tools.map((tool) => tool.name).sort())
    for (const [name, tool] of Object.entries(toolsByName)) expect(tool.name).toBe(name)
  })

  it("type a call's arguments and answer by the tool's own schemas", () => {
    expectTypeOf<ToolResult<'list_posts'>>().toHaveProperty('posts')
    expectTypeOf<ToolResult<'get_post'>['targets'][number]>().toHaveProperty('status')
    expectTypeOf<ToolArgs<'reschedule_post'>>().toHaveProperty('scheduleDate')
    // @ts-expect-error list_posts answers no `post`
    expectTypeOf<ToolResult<'list_posts'>>().toHaveProperty('post')
  })
})
