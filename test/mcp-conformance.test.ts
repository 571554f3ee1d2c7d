import { execFile } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import {
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Harness, startHarness } from './helpers/harness.js'

/**
 * The official MCP conformance suite (`@modelcontextprotocol/conformance`), run against a started Herald.
 *
 * The suite's client sends no credentials and has no option to, and Herald answers every unauthenticated
 * MCP request with 401. So the suite talks to a loopback reverse proxy that adds an API key header and
 * passes everything else through untouched (Host and Origin included), the way Herald is deployed behind a
 * proxy; PUBLIC_BASE_URL is the proxy's address, as it would be.
 */

/** The scenarios that apply to Herald: each must pass. */
const APPLICABLE = ['server-initialize', 'ping', 'tools-list', 'dns-rebinding-protection'] as const

/**
 * Every other server scenario of conformance 0.1.16, and why it does not apply (excluded: fixture tools
 * Herald does not have, capabilities it does not declare, and sessions its stateless transport does not
 * keep). The suite's own scenario list is compared against this table, so a new scenario in a newer suite
 * fails the test until it is placed in one list or the other.
 */
const NOT_APPLICABLE: Record<string, string> = {
  'logging-set-level':
    'Herald declares no logging capability (logging/setLevel is deprecated as of 2026-07-28; Herald logs to its own log)',
  'completion-complete': 'Herald has no prompts or resource templates to complete',
  'tools-call-simple-text':
    'needs the suite’s fixture tool test_simple_text; Herald serves exactly its 17 tools',
  'tools-call-image': 'needs the fixture tool test_image_content',
  'tools-call-audio': 'needs the fixture tool test_audio_content',
  'tools-call-embedded-resource': 'needs the fixture tool test_embedded_resource',
  'tools-call-mixed-content': 'needs the fixture tool test_multiple_content_types',
  'tools-call-with-logging': 'needs the fixture tool test_tool_with_logging (and the logging capability)',
  'tools-call-error':
    'needs the fixture tool test_error_handling; Herald’s tool errors are covered in test/mcp.test.ts',
  'tools-call-with-progress': 'needs the fixture tool test_tool_with_progress',
  'tools-call-sampling': 'needs the fixture tool test_sampling; Herald never asks the client to sample',
  'tools-call-elicitation': 'needs the fixture tool test_elicitation; Herald never elicits input',
  'json-schema-2020-12': 'needs the fixture tool json_schema_2020_12_tool',
  'elicitation-sep1034-defaults': 'Herald never elicits input',
  'elicitation-sep1330-enums': 'Herald never elicits input',
  'server-sse-polling':
    'needs a session (mcp-session-id) and resumable SSE streams; Herald’s streamable HTTP is stateless, so any process answers any request',
  'server-sse-multiple-streams': 'needs a session and server-initiated SSE streams; Herald is stateless',
  'resources-list': 'Herald serves tools only: no resources',
  'resources-read-text': 'Herald serves tools only: no resources',
  'resources-read-binary': 'Herald serves tools only: no resources',
  'resources-templates-read': 'Herald serves tools only: no resources',
  'resources-subscribe': 'Herald serves tools only: no resources',
  'resources-unsubscribe': 'Herald serves tools only: no resources',
  'prompts-list': 'Herald serves tools only: no prompts',
  'prompts-get-simple': 'Herald serves tools only: no prompts',
  'prompts-get-with-args': 'Herald serves tools only: no prompts',
  'prompts-get-embedded-resource': 'Herald serves tools only: no prompts',
  'prompts-get-with-image': 'Herald serves tools only: no prompts',
}

const cli = path.join(
  path.dirname(createRequire(import.meta.url).resolve('@modelcontextprotocol/conformance/package.json')),
  'dist/index.js',
)
const run = promisify(execFile)

/** Forwards one request to `target` with `x-api-key` added: a reverse proxy's whole job here. */
function forward(target: URL, key: string, incoming: IncomingMessage, outgoing: ServerResponse) {
  {
    const upstream = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        path: incoming.url,
        method: incoming.method,
        headers: { ...incoming.headers, 'x-api-key': key },
      },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers)
        answer.pipe(outgoing)
      },
    )
    upstream.on('error', () => outgoing.destroy())
    incoming.pipe(upstream)
  }
}

describe('the official MCP conformance suite against Herald', () => {
  let h: Harness
  let proxy: Server
  let proxyUrl: string
  const results = mkdtempSync(path.join(tmpdir(), 'herald-conformance-'))

  beforeAll(async () => {
    let target: URL | undefined
    let key = ''
    proxy = createServer()
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve))
    const port = (proxy.address() as { port: number }).port
    proxyUrl = `http://127.0.0.1:${port}`
    proxy.on('request', (incoming, outgoing) => {
      if (!target) return outgoing.end()
      forward(target, key, incoming, outgoing)
    })
    h = await startHarness({ env: { PUBLIC_BASE_URL: proxyUrl } })
    target = new URL(h.baseUrl)
    key = h.apiKey
  })
  afterAll(async () => {
    await new Promise<void>((resolve) => proxy.close(() => resolve()))
    await h.close()
    rmSync(results, { recursive: true, force: true })
  })

  it('lists no server scenario that is neither run here nor set aside with a reason', async () => {
    const { stdout } = await run(process.execPath, [cli, 'list'])
    const serverPart = stdout.slice(0, stdout.indexOf('Client scenarios'))
    const listed = [...serverPart.matchAll(/^\s+- (\S+)/gm)].map((m) => m[1])
    expect(listed.length).toBeGreaterThan(0)
    for (const name of listed) expect([...APPLICABLE, ...Object.keys(NOT_APPLICABLE)]).toContain(name)
  })

  /** Runs one scenario against `url` and expects every check of it to pass. */
  const passes = async (scenario: string, url: string, label = scenario) => {
    const out = path.join(results, label)
    const result = await run(
      process.execPath,
      [cli, 'server', '--url', url, '--scenario', scenario, '-o', out],
      { timeout: 60_000 },
    ).catch((error: { stdout?: string; stderr?: string; code?: number }) => error)
    const checks = readdirSync(out, { recursive: true })
      .filter((file) => String(file).endsWith('checks.json'))
      .flatMap((file) => JSON.parse(readFileSync(path.join(out, String(file)), 'utf8')) as any[])
    const failed = checks.filter((check) => check.status === 'FAILURE')
    expect(failed, JSON.stringify({ failed, stdout: result.stdout }, null, 2)).toEqual([])
    expect(checks.some((check) => check.status === 'SUCCESS')).toBe(true)
    expect((result as { code?: number }).code ?? 0).toBe(0)
  }

  it.each(APPLICABLE)('passes %s', (scenario) => passes(scenario, `${proxyUrl}/mcp`))

  // The suite sends Host and Origin of the URL it is given: addressed as localhost, a page of this same
  // server (PUBLIC_BASE_URL names 127.0.0.1) must be accepted, and evil.example.com still refused.
  it('passes dns-rebinding-protection with the server addressed as localhost', () =>
    passes(
      'dns-rebinding-protection',
      `${proxyUrl.replace('127.0.0.1', 'localhost')}/mcp`,
      'dns-rebinding-protection-localhost',
    ))
})
