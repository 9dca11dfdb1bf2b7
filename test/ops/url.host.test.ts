// hostOf (src/core/url.ts): what log lines and labels name of a URL.
import { describe, expect, test } from 'bun:test'
import { hostOf } from '../../src/core/url'

describe('hostOf', () => {
  test('host and port, without credentials, path or a default port', () => {
    expect(hostOf('postgres://herald:secret@db.internal:5432/herald', '?')).toBe('db.internal:5432')
    expect(hostOf('nats://127.0.0.1:4222', '?')).toBe('127.0.0.1:4222')
    expect(hostOf('https://hooks.example.com:443/x?token=y', '?')).toBe('hooks.example.com')
    expect(hostOf('http://[::1]:8080/', '?')).toBe('[::1]:8080')
  })

  test('the fallback when the URL does not parse', () => {
    expect(hostOf('not a url', '(an unreadable URL)')).toBe('(an unreadable URL)')
    expect(hostOf('', 'unknown')).toBe('unknown')
  })
})
