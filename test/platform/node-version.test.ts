import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
// @ts-expect-error: plain JavaScript that runs on any Node, without type declarations
import { nodeProblem, requiredNode } from '../../bin/node-check.js'

/** Issue 23 finding 12: on a Node too old, `npm start`, `herald` and the worker say so in one line. */
describe('the Node version check', () => {
  it('reads the minimum from package.json and words the refusal in one line', () => {
    expect(requiredNode()).toEqual([22, 12])
    expect(nodeProblem('24.1.0')).toBeUndefined()
    expect(nodeProblem('22.12.0')).toBeUndefined()
    const problem = nodeProblem('20.18.0') as string
    expect(problem).toContain('Herald needs Node.js 22.12 or newer')
    expect(problem).toContain('this is Node.js 20.18.0')
    expect(problem).not.toContain('\n')
  })

  const oldNode = '/usr/bin/node'
  const oldVersion = existsSync(oldNode)
    ? spawnSync(oldNode, ['-p', 'process.versions.node'], { encoding: 'utf8' }).stdout.trim()
    : ''
  describe.runIf(oldVersion !== '' && nodeProblem(oldVersion) !== undefined)(`on Node ${oldVersion}`, () => {
    for (const [what, args] of [
      ['npm start', ['bin/start.js']],
      ['herald', ['bin/herald.js', '--help']],
      ['the worker', ['bin/herald.js', 'worker']],
    ] as const) {
      it(`${what} exits at once with one line naming the version found and the one needed`, () => {
        const run = spawnSync(oldNode, args, {
          encoding: 'utf8',
          timeout: 20_000,
          env: { PATH: '/usr/bin:/bin' },
        })
        expect(run.status).toBe(1)
        expect(run.signal).toBeNull()
        expect(run.stdout).toBe('')
        expect(run.stderr.trim().split('\n')).toEqual([
          `Herald needs Node.js 22.12 or newer (Node 24 LTS recommended); this is Node.js ${oldVersion}. Install a newer Node, then run npm install again.`,
        ])
      })
    }
  })
})
