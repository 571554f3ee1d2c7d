import { afterAll, beforeAll, expect } from 'vitest'
import { sandboxPrefixes } from '../../src/adapters/registry.js'
import { createAppWorker } from '../../src/main.js'
import type { Worker } from '../../src/modules/delivery/worker.js'
import type { FaultInjector } from '../../src/sandbox/fault-injector.js'
import { startServer, type TestServer } from '../media/servers.js'
import { type Harness, startHarness } from './harness.js'

export interface SourceFile {
  type: string
  bytes: Buffer
}

/**
 * What an end-to-end sandbox suite publishes through, set up before the suite and stopped after it: a
 * sandbox-mode harness with a running worker, a server handing out the suite's media `files` (by path), and
 * the tools called as a client would, every answer kept for the no-token check.
 */
export interface SandboxPublishing {
  readonly h: Harness
  readonly sources: TestServer
  /** The simulator's base URL. */
  simulator(): string
  state(): Promise<Record<string, any[]>>
  /** Every response body the tools gave. */
  readonly answers: string[]
  call(tool: string, input: unknown): ReturnType<Harness['call']>
  /** create_post published at once to `platform` (or to one account of it), expected to be published. */
  post(
    platform: string,
    content: string,
    mediaUrls: string[],
    username?: string,
  ): Promise<{ id: string; targets: { url: string; postId: string }[] }>
}

export function useSandboxPublishing(options: {
  simulator: keyof typeof sandboxPrefixes
  workerId: string
  files: () => Promise<Record<string, SourceFile>>
  /** Asked about every request the simulators serve. */
  faults?: FaultInjector
}): SandboxPublishing {
  let h: Harness
  let worker: Worker
  let sources: TestServer
  beforeAll(async () => {
    const files = new Map(Object.entries(await options.files()))
    sources = await startServer((req, res) => {
      const file = files.get(req.url ?? '')
      if (!file) {
        res.writeHead(404).end()
        return
      }
      res.writeHead(200, { 'content-type': file.type, 'content-length': String(file.bytes.length) })
      res.end(file.bytes)
    })
    h = await startHarness({
      sandbox: true,
      credits: 500,
      ...(options.faults ? { faults: options.faults } : {}),
      env: {
        HERALD_ALLOW_PRIVATE_MEDIA: '1',
        HERALD_IMMEDIATE_WAIT_MS: '30000',
        HERALD_UNKNOWN_OUTCOME_CHECK_MS: '200',
      },
    })
    worker = createAppWorker(h.app, { id: options.workerId })
    worker.start()
  }, 60_000)
  afterAll(async () => {
    await worker?.stop()
    await h?.close()
    await sources?.close()
  })

  const answers: string[] = []
  const simulator = () => `${h.baseUrl}${sandboxPrefixes[options.simulator]}`
  const call = async (tool: string, input: unknown) => {
    const answer = await h.call(tool, input)
    answers.push(JSON.stringify(answer.body))
    return answer
  }
  return {
    get h() {
      return h
    },
    get sources() {
      return sources
    },
    simulator,
    state: async () => (await (await fetch(`${simulator()}/_sandbox/state`)).json()) as Record<string, any[]>,
    answers,
    call,
    async post(platform, content, mediaUrls, username) {
      const { status, body } = await call('create_post', {
        content,
        ...(username ? { targetAccounts: [{ platform, username }] } : { platforms: [platform] }),
        ...(mediaUrls.length > 0 ? { mediaUrls: mediaUrls.map((p) => `${sources.url}${p}`) } : {}),
        publishImmediately: true,
      })
      expect(status, JSON.stringify(body)).toBe(200)
      const [created] = body.posts
      expect(created.status, JSON.stringify(created)).toBe('published')
      return created
    },
  }
}
