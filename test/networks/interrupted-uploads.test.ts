import { spawn } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import { encodeMultipart } from '../../src/platform/egress/multipart.js'

/** Runs a fixture as its own Node process: its exit code, stdout and stderr. */
function runProcess(script: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', script], { stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk) => {
    stdout += chunk
  })
  child.stderr.on('data', (chunk) => {
    stderr += chunk
  })
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, stdout, stderr })))
}

describe('uploads cut short', () => {
  // Before: X's APPEND went out as a FormData that undici streams from an unawaited loop; a cancel while it
  // still read the Blob made it throw `ERR_INVALID_STATE: ReadableStream is already closed` into no promise,
  // and the process died (every "cancelled" run, most "timeout" runs). That undici bug (nodejs/undici#5835)
  // is in Node 24.21.0 (undici 7.29.1) but not in 24.22.3 (7.30.2) or 22.23.5 (6.29.1), where the process
  // would live through a FormData body too: the body kinds fetch was handed are what hold on every Node.
  it("end the X and YouTube adapters' sends with their own outcomes, never by ending the process", async () => {
    const run = await runProcess('test/fixtures/interrupted-upload-process.ts')
    expect(run.stderr).not.toMatch(/ERR_INVALID_STATE|already closed/)
    expect(run.code).toBe(0)
    const outcomes = JSON.parse(run.stdout.trim().split('\n').at(-1) ?? '{}') as Record<string, string[]>
    // Every APPEND's multipart body was bytes already (src/platform/egress/multipart.ts), never a FormData or a Blob.
    const bodies = outcomes['append bodies'] ?? []
    expect(bodies.length).toBeGreaterThanOrEqual(10)
    expect(new Set(bodies)).toEqual(new Set(['Buffer']))
    const cancelled = expect.stringMatching(/^PublishFailure transient: .*cancelled before the post was sent/)
    // A cancelled send or a client timeout is the send's cancellation, before anything was posted.
    expect(outcomes.cancelled).toEqual(Array(2).fill(cancelled))
    expect(outcomes.timeout).toEqual(Array(6).fill(cancelled))
    // A reset APPEND is a failed media item: the post goes out without it (spec rule 4).
    expect(outcomes.reset).toEqual(Array(3).fill('published without its media'))
    // The post's answer cut mid-body: X may hold the post, so the outcome is unknown (a lookup decides).
    expect(outcomes['answer cut']).toEqual(
      Array(3).fill(
        expect.stringMatching(/^PublishFailure unknown_outcome: .*may or may not have been published/),
      ),
    )
    // YouTube's streamed PUT: reset twice, the session says it holds part of the file (no video: resent
    // later); cancelled mid-body, nothing was asked, so the outcome is unknown (the session lookup decides).
    expect(outcomes['youtube reset']).toEqual(
      Array(2).fill(
        expect.stringMatching(/^PublishFailure transient: The upload stopped after \d+ of 3145728 bytes/),
      ),
    )
    expect(outcomes['youtube timeout']).toEqual(
      Array(3).fill(
        expect.stringMatching(/^PublishFailure unknown_outcome: The upload to YouTube was interrupted/),
      ),
    )
  }, 60_000)
})

describe('encodeMultipart', () => {
  it('encodes a form that a multipart parser reads back field for field, file bytes intact', async () => {
    const bytes = Buffer.from([0, 1, 2, 13, 10, 255, 45, 45])
    const form = new FormData()
    form.append('media', new Blob([bytes], { type: 'video/mp4' }), 'a "clip".mp4')
    form.append('segment_index', '3')
    form.append('note', 'two\nlines')
    const { body, contentType } = await encodeMultipart(form)
    const parsed = await new Response(body, { headers: { 'content-type': contentType } }).formData()
    const media = parsed.get('media') as File
    expect(media.name).toBe('a "clip".mp4')
    expect(media.type).toBe('video/mp4')
    expect(Buffer.from(await media.arrayBuffer())).toEqual(bytes)
    expect(parsed.get('segment_index')).toBe('3')
    expect(parsed.get('note')).toBe('two\r\nlines')
  })
})
