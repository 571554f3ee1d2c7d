import { type ChildProcess, spawn } from 'node:child_process'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { connectProfile } from '../helpers/connections.js'
import { type Harness, startHarness } from '../helpers/harness.js'
import { type SharedDatabase, sharedSqlite } from '../helpers/worker-processes.js'

/**
 * Several processes on one SQLite file. A write transaction that begins with a read
 * (create_post with an idempotency key reads the key first) must take the write lock up front (BEGIN
 * IMMEDIATE): a deferred one fails with SQLITE_BUSY when another process wrote since its read, and
 * busy_timeout cannot help. Two real API processes, concurrent create_post calls, each key sent to both.
 */
describe('two API processes on one SQLite file', () => {
  let db: SharedDatabase
  let h: Harness
  const children: ChildProcess[] = []
  const urls: string[] = []

  beforeAll(async () => {
    db = sharedSqlite()
    h = await startHarness({
      backend: { name: 'sqlite', open: db.open },
      env: { HERALD_DATA_DIR: db.env.WORKER_DATA_DIR as string },
      credits: 100_000,
    })
    await connectProfile(h, 'twitter', 'tw-sqlite', 'sqlite')
    for (let i = 0; i < 2; i++) {
      const child = spawn(process.execPath, ['--import', 'tsx', 'test/fixtures/api-process.ts'], {
        env: { ...process.env, ...db.env },
        stdio: ['ignore', 'pipe', 'pipe'],
      })
      children.push(child)
      const stderr: string[] = []
      child.stderr?.on('data', (chunk) => stderr.push(chunk.toString()))
      urls.push(
        await new Promise<string>((resolve, reject) => {
          child.stdout?.on('data', (chunk) => {
            const match = /ready (\S+)/.exec(chunk.toString())
            if (match) resolve(match[1] as string)
          })
          child.on('exit', (code) => reject(new Error(`api exited with ${code}: ${stderr.join('')}`)))
        }),
      )
    }
  }, 60_000)
  afterAll(async () => {
    for (const child of children) if (child.exitCode === null) child.kill('SIGKILL')
    await h?.close()
  })

  it('answers every concurrent create_post and creates one post per idempotency key', async () => {
    const keys = Array.from({ length: 60 }, (_, i) => `sqlite-key-${i}`)
    const call = (url: string, key: string) =>
      fetch(`${url}/api/tools/create_post`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': h.apiKey },
        body: JSON.stringify({
          content: `Written by two processes at once (${key})`,
          targetAccounts: [{ platform: 'twitter', profileId: 'tw-sqlite' }],
          scheduleDate: '2040-01-01',
          scheduleTime: '10:00',
          timezone: 'UTC',
          idempotencyKey: key,
        }),
      }).then(async (response) => ({ status: response.status, body: (await response.json()) as any }))
    const answers = await Promise.all(keys.flatMap((key) => urls.map((url) => call(url, key))))
    const failures = answers.filter((a) => a.status !== 200)
    expect(failures.map((a) => JSON.stringify(a.body))).toEqual([])
    // Both processes answered each key with the same post.
    for (const [i, key] of keys.entries()) {
      const [a, b] = [answers[2 * i], answers[2 * i + 1]]
      expect(a?.body.postIds, key).toEqual(b?.body.postIds)
    }
    const posts = await h.app.store.db
      .selectFrom('posts')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('content', 'like', 'Written by two processes at once%')
      .executeTakeFirstOrThrow()
    expect(Number(posts.n)).toBe(keys.length)
    // Charged once per key, not once per process.
    const charges = await h.app.store.db
      .selectFrom('credit_ledger')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('workspace_id', '=', h.workspaceId)
      .where('delta', '<', 0)
      .executeTakeFirstOrThrow()
    expect(Number(charges.n)).toBe(keys.length)
  }, 120_000)
})
