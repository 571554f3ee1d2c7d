import { createHash } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { ViewBundleError, viewDocument, viewPolicy } from '../../src/interfaces/mcp-apps/document.js'
import type { ViewBootData } from '../../src/interfaces/mcp-apps/views.js'

const boot: ViewBootData = {
  view: 'compose',
  can: { check: true, create: false, retry: false, open: true, refresh: false },
  marks: { bluesky: 'M0 0h24v24H0z' },
}
const parts = {
  title: 'Post preview',
  css: 'body{margin:0}',
  script: 'console.info(1)',
  boot,
  mediaOrigin: 'https://herald.example',
}
const hash = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`

/** A view's page as the host receives it: its two blocks inline, held to a policy that runs only them. */
describe('an MCP Apps view document', () => {
  it('runs only its own script and stylesheet, by hash, and fetches nothing but Herald’s media', () => {
    const policy = viewPolicy(parts)
    expect(policy).toContain(`script-src ${hash(parts.script)}`)
    expect(policy).toContain(`style-src ${hash(parts.css)}`)
    expect(policy).toContain("connect-src 'none'")
    expect(policy).toContain('img-src https://herald.example data:')
    expect(viewDocument(parts)).toContain(`content="${policy}"`)
  })

  it('writes the permissions as JSON that cannot close its script element, whatever it holds', () => {
    const html = viewDocument({ ...parts, title: '</script><script>alert(1)</script>' })
    expect(html).not.toContain('<script>alert(1)')
    const island = /<script type="application\/json" id="boot">(.*?)<\/script>/s.exec(html)?.[1]
    expect(JSON.parse(island ?? '')).toEqual(boot)
  })

  it('refuses a bundle that would end its own element early', () => {
    expect(() => viewDocument({ ...parts, script: 'var s="</script>"' })).toThrow(ViewBundleError)
    expect(() => viewDocument({ ...parts, css: 'a{}</style><p>' })).toThrow(ViewBundleError)
  })
})
