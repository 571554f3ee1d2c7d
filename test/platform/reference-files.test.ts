import { existsSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { referenceAvailable, referencePath } from '../helpers/reference.js'

describe('the networks reference files', () => {
  it('are found from the project root, in ../shared beside it', () => {
    const file = referencePath('openapi/x-api-v2.openapi.json')
    expect(file).toMatch(/[/\\]shared[/\\]reference[/\\]openapi[/\\]x-api-v2\.openapi\.json$/)
    expect(existsSync(file)).toBe(true)
  })

  it('fail the run under CI=true when one is missing, instead of skipping', () => {
    const missing = referencePath('openapi/no-such-file.json')
    expect(() => referenceAvailable(missing, { CI: 'true' })).toThrow(/no-such-file\.json is missing/)
    expect(referenceAvailable(missing, {})).toBe(false)
  })
})
