// What a schema error says, in words: a 400's detail never shows a regular
// expression or TypeBox's own phrasing ("Expected string to match
// '^[a-z0-9]…$'"). A schema's own `error` text wins; these words are for
// the rest, by the kind of rule that failed.
import { ValueErrorType, type ValueError } from '@sinclair/typebox/errors'

// The patterns Herald's schemas share, said as a person would.
const PATTERNS: Record<string, string> = {
  '^[a-z0-9][a-z0-9_-]*$': 'lower-case letters, digits, "-" and "_", starting with a letter or digit',
  '^[a-z0-9][a-z0-9_-]{0,63}$': '1 to 64 lower-case letters, digits, "-" and "_", starting with a letter or digit',
  '^[a-z0-9_-]*$': 'lower-case letters, digits, "-" and "_"',
  '^\\+[1-9][0-9]{6,14}$': 'a phone number in international form (E.164), such as +14155550100',
  '^https?://': 'an http:// or https:// URL',
  '^https://': 'an https:// URL',
  '^[hH][tT][tT][pP][sS]?://': 'an http:// or https:// URL',
  '^[\\x21-\\x7e]+$': 'printable characters without spaces',
  '^[\\t\\x20-\\x7e]*$': 'printable characters (no line breaks or control characters)',
  '^[^@\\s]+@[^@\\s]+$': 'an e-mail address, such as jane@example.com',
}

const kind = (schema: { type?: unknown }) => {
  switch (schema.type) {
    case 'string': return 'text'
    case 'integer': return 'a whole number'
    case 'number': return 'a number'
    case 'boolean': return 'true or false'
    case 'object': return 'an object'
    case 'array': return 'a list'
    case 'null': return 'null'
    default: return 'another kind of value'
  }
}

/** The rule an error broke, in words ("must be at most 64 characters"). */
export function inWords(e: ValueError): string {
  const s = e.schema as Record<string, unknown>
  switch (e.type) {
    case ValueErrorType.StringPattern: {
      const words = PATTERNS[String(s.pattern)]
      if (words) return `must be ${words}`
      return typeof s.description === 'string' ? `does not have the expected form (${s.description})` : 'does not have the expected form'
    }
    case ValueErrorType.StringMaxLength: return `must be at most ${s.maxLength} characters`
    case ValueErrorType.StringMinLength: return s.minLength === 1 ? 'must not be empty' : `must be at least ${s.minLength} characters`
    case ValueErrorType.StringFormat: return `must be ${s.format === 'date-time' ? 'a date and time (RFC 3339, e.g. 2026-01-31T12:00:00Z)' : s.format === 'uuid' ? 'a UUID' : s.format === 'email' ? 'an e-mail address' : `in the format ${s.format}`}`
    case ValueErrorType.ArrayMaxItems: return `must hold at most ${s.maxItems} items`
    case ValueErrorType.ArrayMinItems: return `must hold at least ${s.minItems} item${s.minItems === 1 ? '' : 's'}`
    case ValueErrorType.NumberMaximum:
    case ValueErrorType.IntegerMaximum: return `must be at most ${s.maximum}`
    case ValueErrorType.NumberMinimum:
    case ValueErrorType.IntegerMinimum: return `must be at least ${s.minimum}`
    case ValueErrorType.NumberExclusiveMinimum:
    case ValueErrorType.IntegerExclusiveMinimum: return `must be more than ${s.exclusiveMinimum}`
    case ValueErrorType.Literal: return `must be ${JSON.stringify(s.const)}`
    case ValueErrorType.Union: {
      const options = (s.anyOf as { const?: unknown }[] | undefined)?.map((o) => o.const).filter((c) => c !== undefined)
      return options?.length ? `must be one of ${options.map((o) => JSON.stringify(o)).join(', ')}` : 'is not one of the accepted forms'
    }
    case ValueErrorType.String:
    case ValueErrorType.Integer:
    case ValueErrorType.Number:
    case ValueErrorType.Boolean:
    case ValueErrorType.Object:
    case ValueErrorType.Array:
    case ValueErrorType.Null: return `must be ${kind(s)}`
    case ValueErrorType.ObjectRequiredProperty: return 'is required'
    case ValueErrorType.ObjectMinProperties: return `must name at least ${s.minProperties} field${s.minProperties === 1 ? '' : 's'}`
    default: return e.message.replace(/ to match '.*'$/, ' to have the expected form')
  }
}
