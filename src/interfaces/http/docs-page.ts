import type { AnyTool } from '../tools/tool.js'
import { inputJsonSchema } from './json-schema.js'

const escapeHtml = (text: string) =>
  text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string,
  )

interface Property {
  type?: string | string[]
  description?: string
  enum?: unknown[]
  items?: Property
  default?: unknown
}

function typeOf(p: Property): string {
  if (p.enum) return p.enum.map((v) => JSON.stringify(v)).join(' | ')
  if (p.type === 'array') return `array of ${p.items ? typeOf(p.items) : 'any'}`
  return Array.isArray(p.type) ? p.type.join(' | ') : (p.type ?? 'any')
}

/** A self-contained HTML reference of every tool, rendered from the registry (works offline). */
export function renderDocsPage(tools: readonly AnyTool[]): string {
  const sections = tools.map((tool) => {
    const schema = inputJsonSchema(tool) as { properties?: Record<string, Property>; required?: string[] }
    const rows = Object.entries(schema.properties ?? {})
      .map(
        ([name, p]) =>
          `<tr><td><code>${escapeHtml(name)}</code></td><td>${escapeHtml(typeOf(p))}</td><td>${schema.required?.includes(name) ? 'yes' : ''}</td><td>${escapeHtml(p.description ?? '')}${p.default !== undefined ? ` Default: <code>${escapeHtml(JSON.stringify(p.default))}</code>.` : ''}</td></tr>`,
      )
      .join('')
    return `<section id="${tool.name}"><h2><code>${tool.name}</code></h2>
<p class="meta">${tool.category} · ${tool.access} · <code>POST /api/tools/${tool.name}</code></p>
<p>${escapeHtml(tool.description)}</p>
<table><thead><tr><th>Field</th><th>Type</th><th>Required</th><th>Description</th></tr></thead><tbody>${rows}</tbody></table></section>`
  })
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Herald API reference</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>body{font:15px/1.5 system-ui,sans-serif;max-width:960px;margin:2rem auto;padding:0 1rem;color:#1d2330}
table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid #dde;padding:.35rem;text-align:left;vertical-align:top}
code{background:#f3f4f8;padding:0 .2rem;border-radius:3px}.meta{color:#667}nav a{margin-right:.6rem}</style></head>
<body><h1>Herald API reference</h1>
<p>Every tool is <code>POST /api/tools/&lt;name&gt;</code> with a JSON body, authenticated with <code>x-api-key</code> or
<code>Authorization: Bearer</code>. The same tools are served over MCP at <code>/mcp</code>; the machine-readable description is
<a href="/openapi.json">/openapi.json</a>.</p>
<nav>${tools.map((t) => `<a href="#${t.name}">${t.name}</a>`).join(' ')}</nav>
${sections.join('\n')}</body></html>`
}
