import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { tools } from '../../src/interfaces/tools/registry.js'
import { createToolRunner } from '../../src/interfaces/tools/runner.js'
import { createAppWorker } from '../../src/main.js'
import { sandboxConnect } from '../../src/modules/connections/sandbox-connect.js'
import type { Worker } from '../../src/modules/delivery/worker.js'
import { importContextFor, importCsv } from '../../src/modules/publishing/csv-import.js'
import { FakeClock } from '../../src/platform/clock.js'
import { backends } from '../helpers/backends.js'
import { scriptedFaults } from '../helpers/fault-script.js'
import { type Harness, startHarness } from '../helpers/harness.js'
import { manage } from '../helpers/team.js'

/**
 * A CSV import whose process dies between a row's create_post and the import's own record of the row:
 * imported again more than a day later (create_post's idempotency key has expired by then), the row is
 * still known as imported, and LinkedIn ends up with its post once, counted on the simulator.
 */
describe.each(backends)('a CSV import cut short on $name', (backend) => {
  // Near today: the LinkedIn simulator refuses API versions that are too old for the clock's date.
  const today = new Date()
  const start = Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate(), 12)
  const clock = new FakeClock(start)
  const slotDay = new Date(start + 2 * 86_400_000).toISOString().slice(0, 10)
  const script = scriptedFaults()
  let h: Harness
  let worker: Worker
  beforeAll(async () => {
    h = await startHarness({
      backend,
      clock,
      sandbox: true,
      faults: script,
      credits: 1_000,
      env: { HERALD_IMMEDIATE_WAIT_MS: '0' },
    })
    await sandboxConnect(h.app, {
      workspaceId: h.workspaceId,
      network: 'linkedin',
      username: 'Import Member',
    })
    worker = createAppWorker(h.app, { id: 'import-worker' })
  }, 60_000)
  afterAll(async () => {
    await worker?.stop()
    await h?.close()
  })

  it('creates a row once when the file is imported again a day after the import died right after creating it', async () => {
    const csv = `content,profiles,date,time\nImported once only,linkedin,${slotDay},09:00\n`
    const runner = createToolRunner(h.app, tools)
    const caller = { userId: h.userId, apiKeyId: 'import-test', defaultWorkspaceId: h.workspaceId }
    const real = await importContextFor(h.app, runner, caller, { workspaceId: h.workspaceId, role: 'owner' })
    // The process dies the moment create_post has committed the row's post, before the import goes on.
    const dying = {
      ...real,
      run: async (tool: string, args: Record<string, unknown>, options?: Parameters<typeof real.run>[2]) => {
        const answer = await real.run(tool, args, options)
        if (tool === 'create_post') throw new Error('SIGKILL')
        return answer
      },
    }
    await expect(importCsv(dying, csv, { dryRun: false })).rejects.toThrow('SIGKILL')

    clock.advance(25 * 3_600_000)
    const again = await manage(h, 'POST', '/api/imports', csv, { contentType: 'text/csv' })
    expect(again.status, JSON.stringify(again.body)).toBe(200)

    clock.set(Date.parse(`${slotDay}T09:01:00Z`))
    for (let pass = 0; pass < 3; pass++) {
      await worker.tick()
      await worker.idle()
    }
    const held = [...h.sandboxes!.linkedin.posts.values()].filter(
      (p) => p.commentary === 'Imported once only',
    )
    expect(held).toHaveLength(1)
    expect(
      script.calls.filter((c) => c.network === 'linkedin' && c.operation === 'posts.create'),
    ).toHaveLength(1)
  })

  it('refuses (409, naming the first posts) a create_post of a row another import recorded meanwhile, creating nothing', async () => {
    const runner = createToolRunner(h.app, tools)
    const caller = { userId: h.userId, apiKeyId: 'import-test', defaultWorkspaceId: h.workspaceId }
    const args = {
      content: 'Recorded by the other import',
      platforms: ['linkedin'],
      scheduleDate: slotDay,
      scheduleTime: '10:00',
    }
    const first = (await runner.run('create_post', args, caller, {
      idempotencyKey: 'csv-import:first',
      importRow: 'row-recorded-meanwhile',
    })) as { postIds: string[] }
    const before = (await h.call('list_posts', {})).body.counts.all
    // The other import's idempotency key has expired: only the row's record stands between it and a copy.
    const second = runner.run('create_post', args, caller, {
      idempotencyKey: 'csv-import:second',
      importRow: 'row-recorded-meanwhile',
    })
    await expect(second).rejects.toMatchObject({
      code: 'conflict',
      details: { importedPostIds: first.postIds },
    })
    expect((await h.call('list_posts', {})).body.counts.all).toBe(before)
  })
})
