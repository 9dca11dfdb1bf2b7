import { describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { ConfigSchema, loadConfig } from '../../src/core/config'

describe('config', () => {
  test('defaults when the environment is empty', () => {
    const c = loadConfig({})
    expect(c.PORT).toBe(8080)
    expect(c.HERALD_DATA_DIR).toBe('./.herald')
    expect(c.HERALD_ADMIN_TOKEN).toBeUndefined()
    expect(c.DATABASE_URL).toBeUndefined()
  })

  test('numbers and booleans are converted from strings', () => {
    const c = loadConfig({ PORT: '9000', HERALD_DEMO_WORKSPACE: 'false', HERALD_DEFAULT_RATE_PER_SECOND: '2.5' })
    expect(c.PORT).toBe(9000)
    expect(c.HERALD_DEMO_WORKSPACE).toBe(false)
    expect(c.HERALD_DEFAULT_RATE_PER_SECOND).toBe(2.5)
  })

  test.each([
    ['PORT', 'eighty'],
    ['PORT', '70000'],
    ['API_KEY_CACHE_TTL_MS', '6000'],
    ['DATABASE_URL', 'mysql://x'],
    ['LOG_LEVEL', 'loud'],
    ['HERALD_ADMIN_TOKEN', 'short'],
  ])('a bad %s fails fast and names the key', (key, value) => {
    expect(() => loadConfig({ [key]: value })).toThrow(new RegExp(`invalid configuration: ${key}=`))
  })

  test('secrets are not echoed in the error', () => {
    expect(() => loadConfig({ HERALD_ADMIN_TOKEN: 'short' })).toThrow(/HERALD_ADMIN_TOKEN=\(hidden\)/)
  })

  test('every key is documented in the README table', () => {
    const readme = readFileSync(`${import.meta.dir}/../../README.md`, 'utf8')
    for (const key of Object.keys(ConfigSchema.properties)) expect(readme).toContain(`| \`${key}\` |`)
  })
})
